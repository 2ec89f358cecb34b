// Package proctest is a fake proc.Runner for tests, after lazygit's fake
// command runner: a test says which commands the code must run, in order,
// with their exact argv (and, when it matters, directory and environment),
// and what each answers — lines on stdout and stderr, an exit code. A call
// that was not expected, or an expected one never made, fails the test.
// Nothing is started, so such a test runs in microseconds and needs no
// root; the real-process tests stay beside it for the real effect.
package proctest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/perfbisect/perfbisect/internal/proc"
)

// TB is the part of testing.TB the fake uses.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Cleanup(func())
}

// Fake is a proc.Runner that plays the calls it expects. It is safe for
// concurrent use; the calls must still come in the expected order.
type Fake struct {
	t     TB
	mu    sync.Mutex
	calls []*Call
	next  int
}

// New returns a Fake that fails t, when t ends, for every expected call
// that was not made.
func New(t TB) *Fake {
	f := &Fake{t: t}
	t.Cleanup(func() {
		t.Helper()
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, c := range f.calls[f.next:] {
			t.Errorf("proctest: expected command never ran: %s", c)
		}
	})
	return f
}

// Call is one expected command and its canned answer.
type Call struct {
	start bool
	argv  []string
	dir   *string
	env   []string
	lines []proc.Line
	code  int
	hold  bool
	err   error
	do    func(proc.Cmd)
}

// ExpectRun expects Run with this argv (the program's path, then its
// arguments); by default it succeeds and says nothing.
func (f *Fake) ExpectRun(argv ...string) *Call { return f.expect(false, argv) }

// ExpectStart expects Start with this argv; by default the process says
// what it is given to say and exits 0.
func (f *Fake) ExpectStart(argv ...string) *Call { return f.expect(true, argv) }

func (f *Fake) expect(start bool, argv []string) *Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := &Call{start: start, argv: argv}
	f.calls = append(f.calls, c)
	return c
}

// InDir also expects this working directory.
func (c *Call) InDir(dir string) *Call { c.dir = &dir; return c }

// WithEnv also expects these entries ("NAME=value") in the environment.
func (c *Call) WithEnv(kv ...string) *Call { c.env = append(c.env, kv...); return c }

// Stdout has the program print text (lines) on stdout, after what it was
// given to print before.
func (c *Call) Stdout(text string) *Call { return c.say(text, false) }

// Stderr has the program print text on stderr, after what it was given to
// print before.
func (c *Call) Stderr(text string) *Call { return c.say(text, true) }

func (c *Call) say(text string, stderr bool) *Call {
	for l := range strings.Lines(text) {
		c.lines = append(c.lines, proc.Line{Text: strings.TrimRight(l, "\r\n"), Stderr: stderr})
	}
	return c
}

// Exit has the program exit with code.
func (c *Call) Exit(code int) *Call { c.code = code; return c }

// Hold keeps the program running, once it has said its lines, until it is
// stopped (its context, Stop, Kill, or closing its stdin).
func (c *Call) Hold() *Call { c.hold = true; return c }

// FailToStart has the program not start, with err.
func (c *Call) FailToStart(err error) *Call { c.err = err; return c }

// Do runs fn with the command when it is called, before it answers: the
// effect the real program would have (a file it writes).
func (c *Call) Do(fn func(proc.Cmd)) *Call { c.do = fn; return c }

func (c *Call) String() string { return verb(c.start) + " " + strings.Join(c.argv, " ") }

func (c *Call) want() string { return fmt.Sprintf("%s %q", verb(c.start), c.argv) }

func verb(start bool) string {
	if start {
		return "Start"
	}
	return "Run"
}

// take matches cmd against the next expected call.
func (f *Fake) take(start bool, cmd proc.Cmd) (*Call, error) {
	f.t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	argv := append([]string{cmd.Path}, cmd.Args...)
	if f.next == len(f.calls) {
		f.t.Errorf("proctest: unexpected command: %s %q (no more expected)", verb(start), argv)
		return nil, fmt.Errorf("proctest: unexpected command %q", argv)
	}
	c := f.calls[f.next]
	var bad []string
	if c.start != start || !slices.Equal(c.argv, argv) {
		bad = append(bad, fmt.Sprintf("%s %q", verb(start), argv))
	}
	if c.dir != nil && *c.dir != cmd.Dir {
		bad = append(bad, fmt.Sprintf("in %q, not %q", cmd.Dir, *c.dir))
	}
	for _, kv := range c.env {
		if !slices.Contains(cmd.Env, kv) {
			bad = append(bad, fmt.Sprintf("without %s in its environment", kv))
		}
	}
	if len(bad) > 0 {
		f.t.Errorf("proctest: command %d: want %s, got %s", f.next+1, c.want(), strings.Join(bad, ", "))
		return nil, fmt.Errorf("proctest: unexpected command %q", argv)
	}
	f.next++
	return c, nil
}

// Run plays the next expected call: see proc.Runner.
func (f *Fake) Run(ctx context.Context, cmd proc.Cmd) (proc.Result, error) {
	f.t.Helper()
	return proc.RunWith(ctx, cmd, func(ctx context.Context, cmd proc.Cmd) (proc.Process, error) {
		return f.start(ctx, false, cmd)
	})
}

// Start plays the next expected call: see proc.Runner.
func (f *Fake) Start(ctx context.Context, cmd proc.Cmd) (proc.Process, error) {
	f.t.Helper()
	return f.start(ctx, true, cmd)
}

func (f *Fake) start(ctx context.Context, start bool, cmd proc.Cmd) (proc.Process, error) {
	f.t.Helper()
	defer func() {
		for _, file := range cmd.Files {
			file.Close()
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("start %s: %w", cmd.Title(), err)
	}
	c, err := f.take(start, cmd)
	if err != nil {
		return nil, err
	}
	if c.err != nil {
		return nil, fmt.Errorf("start %s: %w", cmd.Title(), c.err)
	}
	if c.do != nil {
		c.do(cmd)
	}
	p := &process{cmd: cmd, call: c, out: proc.NewOutput(cmd.Keep), done: make(chan struct{}), end: make(chan error, 1)}
	if cmd.StdinPipe {
		p.stdin = &stdin{p: p}
	}
	go p.play(ctx)
	return p, nil
}

// process is a fake running program.
type process struct {
	cmd   proc.Cmd
	call  *Call
	out   *proc.Output
	stdin *stdin
	done  chan struct{}
	end   chan error // how a held process is made to end
	err   error
}

// pid is what a fake process says its pid is: none that a signal could
// reach by mistake.
const pid = 1 << 30

func (p *process) play(ctx context.Context) {
	for _, l := range p.call.lines {
		p.out.Add(l)
		if p.cmd.Line != nil {
			p.cmd.Line(l)
		}
	}
	werr := exit(p.call.code)
	var cause error
	if p.call.hold {
		if p.cmd.Timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeoutCause(ctx, p.cmd.Timeout, &proc.TimeoutError{After: p.cmd.Timeout})
			defer cancel()
		}
		select {
		case werr = <-p.end:
		case <-ctx.Done():
			cause, werr = context.Cause(ctx), p.stopped()
		}
	}
	p.err = proc.Exited(p.cmd.Title(), werr, cause, p.out.Said(p.cmd.Quote))
	close(p.done)
}

func exit(code int) error {
	if code == 0 {
		return nil
	}
	return fmt.Errorf("exit status %d", code)
}

// stopped is how its stop sequence ends it: its first step's signal kills
// it, or it ends as it would by itself when that step closes its stdin.
func (p *process) stopped() error {
	if len(p.cmd.Stop) == 0 {
		return errors.New("killed by SIGKILL")
	}
	if s := p.cmd.Stop[0]; !s.CloseStdin {
		return errors.New("killed by " + proc.SignalName(s.Signal))
	}
	return exit(p.call.code)
}

func (p *process) finish(err error) {
	select {
	case p.end <- err:
	default:
	}
}

func (p *process) Name() string          { return p.cmd.Title() }
func (p *process) Pid() int              { return pid }
func (p *process) Done() <-chan struct{} { return p.done }
func (p *process) Output() *proc.Output  { return p.out }
func (p *process) Kill()                 { p.finish(errors.New("killed by " + proc.SignalName(syscall.SIGKILL))) }

func (p *process) Stdin() io.WriteCloser {
	if p.stdin == nil {
		return nil
	}
	return p.stdin
}

func (p *process) Stop(ctx context.Context) error {
	p.finish(p.stopped())
	<-p.done
	return nil
}

func (p *process) Wait() error {
	<-p.done
	return p.err
}

// stdin takes what is written and ends a held process when closed.
type stdin struct{ p *process }

func (s *stdin) Write(b []byte) (int, error) { return len(b), nil }
func (s *stdin) Close() error                { s.p.finish(exit(s.p.call.code)); return nil }
