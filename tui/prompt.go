package tui

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	xterm "github.com/charmbracelet/x/term"
	"github.com/perfbisect/perfbisect/probe/knob"
	"github.com/perfbisect/perfbisect/session"
	"github.com/perfbisect/perfbisect/session/playbook"
)

// Prompt asks the operator on the terminal of a headless walk (and of
// `lab up`): it shows a step's changes or a manual step's instructions and
// reads y or N.
type Prompt struct {
	in    *bufio.Reader
	out   io.Writer
	isTTY bool
}

// NewPrompt asks on stdout and reads the answers from stdin.
func NewPrompt(stdin io.Reader, stdout io.Writer) *Prompt {
	t := &Prompt{in: bufio.NewReader(stdin), out: stdout}
	if f, ok := stdin.(*os.File); ok {
		t.isTTY = IsTerminal(f)
	}
	return t
}

// IsTerminal says whether f is a terminal (/dev/null, a character device
// too, is not), as bubbletea itself asks.
func IsTerminal(f *os.File) bool { return xterm.IsTerminal(f.Fd()) }

// Interactive reports whether there is someone at a terminal to ask.
func (t *Prompt) Interactive() bool { return t.isTTY }

// Confirm shows every change a step will make and how it is put back
// (session.Options.Confirm).
func (t *Prompt) Confirm(ctx context.Context, step *playbook.Step, changes []knob.Change) (bool, error) {
	fmt.Fprintf(t.out, "\n  step %s will change this host:\n", step.ID)
	t.changes(changes)
	return t.Ask(ctx, "  apply these changes? [y/N] ")
}

// ManualStep shows what a step made by hand asks, and waits until the
// operator has made the change here, or gives the file of the measurement
// they took on another machine (session.ManualOperator). A file that
// cannot be read is said, and asked for again.
func (t *Prompt) ManualStep(ctx context.Context, step *playbook.Step, changes []knob.Change) (*session.Result, bool, error) {
	fmt.Fprintf(t.out, "\n  step %s is made by hand: %s\n", step.ID, step.Title)
	t.changes(changes)
	for {
		a, err := t.line(ctx, "  y = made here (the step runs its workload); f FILE = measured elsewhere\n"+
			"  (perfbisect probe --json output, a session log, saved sysbench/pgbench/fio output); N = skip: ")
		if err != nil {
			return nil, false, err
		}
		verb, file, _ := strings.Cut(strings.TrimSpace(a), " ")
		switch strings.ToLower(verb) {
		case "y", "yes":
			return nil, true, nil
		case "f", "file":
			file = strings.TrimSpace(file)
			if file == "" {
				fmt.Fprintln(t.out, "  which file? (f FILE)")
				continue
			}
			res, err := session.LoadResult(file)
			if err != nil {
				fmt.Fprintf(t.out, "  cannot use it: %v\n", err)
				continue
			}
			fmt.Fprintf(t.out, "  %d s measured elsewhere, from %s\n", len(res.Run.Samples), file)
			return res, false, nil
		}
		return nil, false, nil
	}
}

// changes lists what each knob does and how it is put back.
func (t *Prompt) changes(changes []knob.Change) {
	for _, c := range changes {
		fmt.Fprintf(t.out, "    %s:\n", c.Knob)
		if c.Before != "" {
			fmt.Fprintf(t.out, "      now:      %s\n", c.Before)
		}
		for _, d := range c.Do {
			fmt.Fprintf(t.out, "      do:       %s\n", d)
		}
		for _, u := range c.Undo {
			fmt.Fprintf(t.out, "      put back: %s\n", u)
		}
	}
}

// Manual shows instructions for a change only a person can make
// (knob.Operator).
func (t *Prompt) Manual(ctx context.Context, title string, instructions []string) (bool, error) {
	fmt.Fprintf(t.out, "\n  %s: by hand\n", title)
	for _, l := range instructions {
		fmt.Fprintf(t.out, "    %s\n", l)
	}
	return t.Ask(ctx, "  done? [y = done, N = skip this step] ")
}

// Ask shows prompt and reads a yes (y) or a no (anything else); a
// cancelled ctx stops waiting.
func (t *Prompt) Ask(ctx context.Context, prompt string) (bool, error) {
	a, err := t.line(ctx, prompt)
	if err != nil {
		return false, err
	}
	a = strings.ToLower(strings.TrimSpace(a))
	return a == "y" || a == "yes", nil
}

// line shows prompt and reads one line; a cancelled ctx stops waiting.
func (t *Prompt) line(ctx context.Context, prompt string) (string, error) {
	fmt.Fprint(t.out, prompt)
	answer := make(chan string, 1)
	errc := make(chan error, 1)
	go func() {
		line, err := t.in.ReadString('\n')
		if err != nil && line == "" {
			errc <- fmt.Errorf("no answer on the terminal: %v", err)
			return
		}
		answer <- line
	}()
	select {
	case <-ctx.Done():
		fmt.Fprintln(t.out)
		return "", ctx.Err()
	case err := <-errc:
		return "", err
	case a := <-answer:
		return a, nil
	}
}
