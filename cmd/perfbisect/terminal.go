package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/charmbracelet/x/term"
	"github.com/perfbisect/perfbisect/probe/knob"
	"github.com/perfbisect/perfbisect/session/playbook"
)

// terminal asks the operator on the terminal of a headless walk.
type terminal struct {
	in    *bufio.Reader
	out   io.Writer
	isTTY bool
}

func newTerminal(stdin io.Reader, stdout io.Writer) *terminal {
	t := &terminal{in: bufio.NewReader(stdin), out: stdout}
	if f, ok := stdin.(*os.File); ok {
		t.isTTY = isTerminal(f.Fd())
	}
	return t
}

// isTerminal says whether fd is a terminal (/dev/null, a character device
// too, is not), as bubbletea itself asks.
func isTerminal(fd uintptr) bool { return term.IsTerminal(fd) }

func (t *terminal) interactive() bool { return t.isTTY }

// confirm shows every change a step will make and how it is put back.
func (t *terminal) confirm(ctx context.Context, step *playbook.Step, changes []knob.Change) (bool, error) {
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
	return t.ask(ctx, "  apply these changes? [y/N] ")
}

// Manual shows instructions for a change only a person can make.
func (t *terminal) Manual(ctx context.Context, title string, instructions []string) (bool, error) {
	fmt.Fprintf(t.out, "\n  %s: by hand\n", title)
	for _, l := range instructions {
		fmt.Fprintf(t.out, "    %s\n", l)
	}
	return t.ask(ctx, "  done? [y = done, N = skip this step] ")
}

func (t *terminal) ask(ctx context.Context, prompt string) (bool, error) {
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
