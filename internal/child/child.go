// Package child starts the programs perfbisect runs (benchmark tools,
// database servers) so that they cannot outlive it: each in a process group
// of its own, killed when perfbisect dies.
package child

import (
	"os/exec"
	"runtime"
	"syscall"
)

// Own puts c in a new process group (so a signal to the group reaches every
// process it starts, and a Ctrl-C in the terminal reaches perfbisect only)
// and asks the kernel to SIGKILL it when perfbisect dies. It keeps any
// credential already set.
func Own(c *exec.Cmd) {
	if c.SysProcAttr == nil {
		c.SysProcAttr = &syscall.SysProcAttr{}
	}
	c.SysProcAttr.Setpgid = true
	c.SysProcAttr.Pdeathsig = syscall.SIGKILL
}

// Start starts c and returns a channel that receives c.Wait's result.
//
// The parent-death signal fires when the OS thread that forked the child
// exits, not when perfbisect does. Go keeps idle threads, but a thread ends
// with any goroutine that exits while locked to it, and a fork may happen on
// such a thread; so c is started on a goroutine locked to its thread, which
// stays alive until c has exited.
func Start(c *exec.Cmd) (<-chan error, error) {
	started := make(chan error, 1)
	waited := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := c.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		waited <- c.Wait()
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return waited, nil
}
