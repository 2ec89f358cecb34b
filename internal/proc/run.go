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
	Output *Output
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
func Run(ctx context.Context, c Cmd) (Result, error) {
	var stdout Stdout
	c.Line = stdout.Tee(c.Line)
	p, err := Start(ctx, c)
	if err != nil {
		return Result{Output: NewOutput(c.Keep)}, err
	}
	err = p.Wait()
	return Result{Stdout: stdout.String(), Output: p.Output()}, err
}

// maxStdout bounds what Result.Stdout keeps.
const maxStdout = 1 << 20

// Stdout keeps the last MiB of a program's standard output, whole lines,
// for Result.Stdout; it is the one place that does, for Run and its fakes.
type Stdout struct {
	mu    sync.Mutex
	lines []string
	size  int
}

// Tee returns a Cmd.Line that keeps stdout's lines and passes every line
// on to next (when not nil).
func (s *Stdout) Tee(next func(Line)) func(Line) {
	return func(l Line) {
		if !l.Stderr {
			s.add(l.Text)
		}
		if next != nil {
			next(l)
		}
	}
}

func (s *Stdout) add(line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lines = append(s.lines, line)
	s.size += len(line) + 1
	for s.size > maxStdout && len(s.lines) > 1 {
		s.size -= len(s.lines[0]) + 1
		s.lines = s.lines[1:]
	}
}

func (s *Stdout) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.lines, "\n")
}
