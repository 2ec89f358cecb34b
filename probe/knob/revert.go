package knob

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/perfbisect/perfbisect/internal/tail"
)

// once makes a revert safe to call more than once: after it has succeeded,
// later calls do nothing. After a failure the next call tries again; each
// revert keeps track of what it has already put back, so only what is left
// is retried.
func once(f Revert) Revert {
	var (
		mu   sync.Mutex
		done bool
	)
	return func(ctx context.Context) error {
		mu.Lock()
		defer mu.Unlock()
		if done {
			return nil
		}
		if err := f(ctx); err != nil {
			return err
		}
		done = true
		return nil
	}
}

// detached is the context a revert runs its commands under. A revert must
// finish even when the step was cancelled (Ctrl-C is when reverts matter
// most), so it ignores ctx's cancellation, keeping its values, and is
// bounded by its own timeout instead.
func detached(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), d)
}

// nothingToRevert is the revert of a knob that changed nothing on the host.
func nothingToRevert(context.Context) error { return nil }

// sleep waits d, or less when ctx ends first.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// runCmd runs a program (not through a shell), stopping it and its children
// when ctx ends, and returns its stdout. A failure says the command, how it
// ended and the last lines of its stderr.
func runCmd(ctx context.Context, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	stdout, stderr := &tail.Lines{Keep: 50}, &tail.Lines{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	killGroup(cmd)
	err := cmd.Run()
	if err != nil {
		return stdout.String(), fmt.Errorf("%s: %v%s", command(append([]string{name}, args...)...), exitReason(ctx, err), said(stderr))
	}
	return stdout.String(), nil
}

// killGroup runs cmd in its own process group and kills the whole group
// when its context ends, so a shell's children do not outlive a timeout.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	// A grandchild holding the output pipes open must not hang Wait.
	cmd.WaitDelay = 2 * time.Second
}

// exitReason says how a command ended, naming a timeout plainly.
func exitReason(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("timed out (%v)", err)
	}
	if ctx.Err() != nil {
		return fmt.Errorf("cancelled (%v)", err)
	}
	return err
}

// said is ": " and the last lines of a command's stderr, when it said any.
func said(stderr *tail.Lines) string {
	if s := stderr.String(); s != "" {
		return ": " + s
	}
	return ""
}
