package proc

import (
	"context"
	"strings"
	"sync"
)

// Runner starts programs. Real starts them; a test may put a fake in its
// place (proctest.Fake) that expects exact commands and answers with
// canned output.
type Runner interface {
	// Run runs c to its end. The error is an *ExitError when the program
	// failed (or was stopped), another error when it could not start; the
	// Result is filled in either way.
	Run(ctx context.Context, c Cmd) (Result, error)
	// Start starts c in the background; see Start.
	Start(ctx context.Context, c Cmd) (Process, error)
}

// Result is what a program run to its end said.
type Result struct {
	// Stdout is its standard output, lines joined by "\n", at most its
	// last MiB.
	Stdout string
}

// Real is the Runner that starts real processes.
type Real struct{}

func (Real) Run(ctx context.Context, c Cmd) (Result, error)    { return Run(ctx, c) }
func (Real) Start(ctx context.Context, c Cmd) (Process, error) { return Start(ctx, c) }

// Or is r, or Real when r is nil.
func Or(r Runner) Runner {
	if r == nil {
		return Real{}
	}
	return r
}

// Run runs c to its end: see Runner.Run.
func Run(ctx context.Context, c Cmd) (Result, error) { return RunWith(ctx, c, Start) }

// RunWith is Runner.Run for a Runner whose Start is start: it starts c,
// keeping its stdout, and waits for its end. It is the one Run, for Real
// and for the fakes.
func RunWith(ctx context.Context, c Cmd, start func(context.Context, Cmd) (Process, error)) (Result, error) {
	var out stdout
	c.Line = out.tee(c.Line)
	p, err := start(ctx, c)
	if err != nil {
		return Result{}, err
	}
	err = p.Wait()
	return Result{Stdout: out.String()}, err
}

// maxStdout bounds what Result.Stdout keeps.
const maxStdout = 1 << 20

// stdout keeps the last MiB of a program's standard output, whole lines,
// for Result.Stdout.
type stdout struct {
	mu    sync.Mutex
	lines []string
	size  int
}

// tee returns a Cmd.Line that keeps stdout's lines and passes every line
// on to next (when not nil).
func (s *stdout) tee(next func(Line)) func(Line) {
	return func(l Line) {
		if !l.Stderr {
			s.add(l.Text)
		}
		if next != nil {
			next(l)
		}
	}
}

func (s *stdout) add(line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lines = append(s.lines, line)
	s.size += len(line) + 1
	for s.size > maxStdout && len(s.lines) > 1 {
		s.size -= len(s.lines[0]) + 1
		s.lines = s.lines[1:]
	}
}

func (s *stdout) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.lines, "\n")
}
