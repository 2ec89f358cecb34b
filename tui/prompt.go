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
	return t.Ask(ctx, "  apply these changes? [y/N] ")
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
		return false, ctx.Err()
	case err := <-errc:
		return false, err
	case a := <-answer:
		a = strings.ToLower(strings.TrimSpace(a))
		return a == "y" || a == "yes", nil
	}
}
