package proc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// Process is a running program.
type Process interface {
	Name() string
	Pid() int // also its process group's id
	// Stdin is the pipe to its stdin (Cmd.StdinPipe); nil without one.
	Stdin() io.WriteCloser
	// Stop runs its stop sequence (Cmd.Stop), SIGKILL at once when ctx is
	// done first, and returns once it has exited, or with an error when it
	// has not, 10 s after SIGKILL (stuck in the kernel). It may be called
	// more than once, and concurrently; the sequence runs once.
	Stop(ctx context.Context) error
	// Kill sends SIGKILL to its process group, and returns at once.
	Kill()
	// Done is closed once it has exited and been reaped, what it left in
	// its group has been killed, and its output read.
	Done() <-chan struct{}
	// Wait waits for Done and says how it ended: nil, or an *ExitError.
	Wait() error
	// Output is what it said.
	Output() *Output
}

// Start starts c. When ctx is done (or c.Timeout is over) its stop
// sequence runs; a program that must outlive ctx is started with
// context.Background() and stopped with Stop.
func Start(ctx context.Context, c Cmd) (Process, error) {
	if err := ctx.Err(); err != nil {
		closeAll(c.Files)
		return nil, fmt.Errorf("start %s: %w", c.Title(), err)
	}
	p := &process{c: c, name: c.Title(), out: NewOutput(c.Keep), done: make(chan struct{}), killed: make(chan struct{})}
	if err := p.start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", p.name, err)
	}
	var cancel context.CancelFunc = func() {}
	if c.Timeout > 0 {
		ctx, cancel = context.WithTimeoutCause(ctx, c.Timeout, &TimeoutError{c.Timeout})
	}
	go func() {
		defer cancel()
		select {
		case <-ctx.Done():
			p.mu.Lock()
			p.cause = context.Cause(ctx)
			p.mu.Unlock()
			p.Stop(context.Background())
		case <-p.done:
		}
	}()
	return p, nil
}

type process struct {
	c     Cmd
	name  string
	cmd   *exec.Cmd
	stdin *os.File
	out   *Output
	done  chan struct{}
	err   error // how it ended; set before done is closed

	mu     sync.Mutex
	cause  error // why its context stopped it
	lineMu sync.Mutex

	stopOnce, killOnce sync.Once
	killed             chan struct{} // closed once SIGKILL was sent
}

// start forks and execs the program, and starts reading its output and
// waiting for it.
func (p *process) start() error {
	c := p.c
	cmd := c.command(&syscall.SysProcAttr{Setpgid: true, Pdeathsig: c.ParentDeath})
	files := append([]*os.File(nil), c.Files...) // closed once the child has its copies
	defer func() { closeAll(files) }()
	outR, outW, err := os.Pipe()
	if err != nil {
		return err
	}
	files = append(files, outW)
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		return err
	}
	files = append(files, errW)
	cmd.Stdout, cmd.Stderr = outW, errW
	if c.StdinPipe {
		inR, inW, err := os.Pipe()
		if err != nil {
			outR.Close()
			errR.Close()
			return err
		}
		files = append(files, inR)
		cmd.Stdin, p.stdin = inR, inW
	}
	waited, err := startWaited(cmd, c.ParentDeath != 0)
	if err != nil {
		outR.Close()
		errR.Close()
		if p.stdin != nil {
			p.stdin.Close()
		}
		return err
	}
	p.cmd = cmd
	var readers sync.WaitGroup
	for _, r := range []struct {
		f      *os.File
		stderr bool
	}{{outR, false}, {errR, true}} {
		readers.Go(func() {
			defer r.f.Close()
			readLines(r.f, func(s string) { p.line(Line{s, r.stderr}) })
		})
	}
	go func() {
		werr := <-waited
		// Whatever it left in its group goes with it. Its pid is only
		// reused after the kernel's pid space wraps around.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		deadline := time.Now().Add(drainWait)
		outR.SetReadDeadline(deadline)
		errR.SetReadDeadline(deadline)
		readers.Wait()
		if p.stdin != nil {
			p.stdin.Close()
		}
		p.mu.Lock()
		cause := p.cause
		p.mu.Unlock()
		p.err = Exited(p.name, werr, cause, p.out.Said(c.Quote))
		close(p.done)
	}()
	return nil
}

// startWaited starts cmd and returns a channel that receives cmd.Wait's
// result.
//
// A parent-death signal fires when the OS thread that forked the child
// exits, not when perfbisect does. Go keeps idle threads, but a thread ends
// with any goroutine that exits while locked to it, and a fork may happen on
// such a thread; so a child with that signal (locked) is started on a
// goroutine locked to its thread, which stays alive until the child has
// exited. Without one, any thread will do.
func startWaited(cmd *exec.Cmd, locked bool) (<-chan error, error) {
	started := make(chan error, 1)
	waited := make(chan error, 1)
	go func() {
		if locked {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
		}
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		waited <- cmd.Wait()
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return waited, nil
}

func (p *process) line(l Line) {
	p.lineMu.Lock()
	defer p.lineMu.Unlock()
	p.out.Add(l)
	if p.c.Line != nil {
		p.c.Line(l)
	}
}

func (p *process) Name() string          { return p.name }
func (p *process) Pid() int              { return p.cmd.Process.Pid }
func (p *process) Done() <-chan struct{} { return p.done }
func (p *process) Output() *Output       { return p.out }

func (p *process) Stdin() io.WriteCloser {
	if p.stdin == nil {
		return nil
	}
	return p.stdin
}

func (p *process) Wait() error {
	<-p.done
	return p.err
}

func (p *process) Stop(ctx context.Context) error {
	p.stopOnce.Do(func() { go p.sequence() })
	select {
	case <-p.done:
		return nil
	case <-p.killed:
	case <-ctx.Done():
		p.Kill()
	}
	t := time.NewTimer(killWait)
	defer t.Stop()
	select {
	case <-p.done:
		return nil
	case <-t.C:
		return fmt.Errorf("%s (pid %d) has not exited %s after SIGKILL; it is probably stuck on I/O", p.name, p.Pid(), killWait)
	}
}

// sequence sends the stop steps, each given its time, then SIGKILL. Once
// it has been killed a step is no use: Stop only waits.
func (p *process) sequence() {
	for _, s := range p.c.Stop {
		select {
		case <-p.done:
			return
		case <-p.killed:
			return
		default:
		}
		what := "closing its stdin"
		if s.CloseStdin {
			if p.stdin != nil {
				p.stdin.Close()
			}
		} else {
			what = SignalName(s.Signal)
			target := -p.Pid()
			if s.Leader {
				target = p.Pid()
			}
			if err := syscall.Kill(target, s.Signal); err != nil && !errors.Is(err, syscall.ESRCH) {
				p.note(fmt.Sprintf("perfbisect: send %s to %s (pid %d): %v", what, p.name, p.Pid(), err))
			}
		}
		t := time.NewTimer(s.Wait)
		select {
		case <-p.done:
			t.Stop()
			return
		case <-p.killed:
			t.Stop()
			return
		case <-t.C:
			p.note(fmt.Sprintf("perfbisect: %s (pid %d) did not exit within %s of %s", p.name, p.Pid(), s.Wait, what))
		}
	}
	p.Kill()
}

func (p *process) Kill() {
	p.killOnce.Do(func() {
		if !p.exited() { // reaped: its group id may be another's one day
			syscall.Kill(-p.Pid(), syscall.SIGKILL)
		}
		close(p.killed)
	})
}

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// note adds perfbisect's own word to what the program said, for its
// messages; Cmd.Line does not see it.
func (p *process) note(s string) { p.out.Add(Line{Text: s, Stderr: true}) }
