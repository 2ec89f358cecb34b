package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	"github.com/perfbisect/perfbisect/probe/host"
	"github.com/perfbisect/perfbisect/session"
	"github.com/perfbisect/perfbisect/session/playbook"
	"github.com/perfbisect/perfbisect/tui"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// errNoTerminal is the answer of the interactive commands without a terminal.
var errNoTerminal = errors.New("no terminal to draw on: use 'perfbisect run --no-tui' to walk a playbook headless (or 'perfbisect probe' to measure once)")

// colorOn sets the colour profile for the screen: none with NO_COLOR.
func colorOn() bool {
	if _, set := os.LookupEnv("NO_COLOR"); set {
		lipgloss.SetColorProfile(termenv.Ascii)
		return false
	}
	return lipgloss.ColorProfile() != termenv.Ascii
}

func terminalIO() bool { return tui.IsTerminal(os.Stdin) && tui.IsTerminal(os.Stdout) }

// runTUI walks the playbook in the investigation screen.
func runTUI(ctx context.Context, opt session.Options, yes bool, log *session.LogWriter, stderr io.Writer) error {
	m, err := tui.NewLive(ctx, tui.Options{
		Options: opt, Yes: yes, Color: colorOn(), LogPath: log.Path(),
		Log: func(e session.Event) { _ = log.Write(e) }, // an error sticks, and Close returns it
	})
	if err != nil {
		return failure(err)
	}
	// The process's own handler turns SIGINT, SIGTERM and SIGHUP into ctx
	// (main): bubbletea's would quit the program at once, leaving a step
	// running with its knobs applied.
	p := tea.NewProgram(m, tea.WithAltScreen(), tea.WithoutSignalHandler())
	go func() {
		<-ctx.Done() // a signal (Ctrl-C is a key in the screen): quit and put the host back
		p.Send(tui.Interrupt())
	}()
	guarded.Store(true)
	_, err = p.Run()
	// However the screen stopped (a quit, a terminal gone, the program
	// killed by an error on it), the host is put back and the session
	// closed before the log is.
	why := "interrupted"
	if err != nil && ctx.Err() == nil {
		why = fmt.Sprintf("the screen stopped (%v)", err)
	}
	m.Finish(why)
	guarded.Store(false)
	logErr := log.Close()
	fmt.Fprint(stderr, m.Summary())
	fmt.Fprintf(stderr, "session log: %s\n", log.Path())
	_, reports := writeReports(log.Path(), stderr)
	for _, p := range reports {
		fmt.Fprintf(stderr, "report: %s\n", p)
	}
	// A failed revert is exit 1 even under a signal: the host is changed.
	if ferr := walkFailure(m.Walk()); ferr != nil {
		return ferr
	}
	switch {
	case ctx.Err() != nil:
		return errInterrupted
	case err != nil:
		return failure(fmt.Errorf("screen: %v", err))
	case logErr != nil:
		return failure(fmt.Errorf("session log: %v", logErr))
	}
	return nil
}

func newReplayCmd(stdout, stderr io.Writer) *cobra.Command {
	var speed float64
	c := &cobra.Command{
		Use:   "replay FILE",
		Short: "Play a recorded session in the investigation screen",
		Long: `replay plays a session log in the same screen as the live walk, marked REPLAY:
at the recorded pace times --speed, or by default as fast as still readable.
space pauses, > and < change the speed, ] and [ jump to the next or previous
step. A log cut short by a crash plays up to its last complete second.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if speed < 0 {
				return usageError(fmt.Errorf("--speed %g: want 0 (as fast as readable) or a positive factor", speed))
			}
			evs, bad, err := readLog(args[0])
			if err != nil {
				return err
			}
			if !terminalIO() {
				return usageError(errNoTerminal)
			}
			m := tui.NewReplay(args[0], evs, bad, speed, colorOn())
			_, err = tea.NewProgram(m, tea.WithAltScreen(), tea.WithContext(c.Context())).Run()
			if err != nil && !errors.Is(err, tea.ErrProgramKilled) {
				return failure(err)
			}
			return nil
		},
	}
	c.Flags().Float64Var(&speed, "speed", 0, "times the recorded pace (0: as fast as readable)")
	return c
}

// runSetup is `perfbisect` alone: the setup screen, then the walk.
func runSetup(ctx context.Context, stdout, stderr io.Writer) error {
	if !terminalIO() {
		return usageError(errNoTerminal)
	}
	dir, err := os.Getwd()
	if err != nil {
		return failure(err)
	}
	name, dataDir, err := defaultPlaybook("")
	if err != nil {
		return failure(err)
	}
	if dataDir == "" {
		dataDir = dir
	}
	h := host.NewLocal()
	facts, _ := h.Facts(ctx, dataDir)
	colorOn()
	s := tui.NewSetup(facts, playbook.Embedded(), name, dataDir)
	if _, err := tea.NewProgram(s, tea.WithAltScreen()).Run(); err != nil {
		return failure(err)
	}
	ch := s.Choice()
	if !ch.Start {
		return nil
	}
	f := walkFlags{playbook: ch.Playbook, dir: ch.Dir, reference: ch.Reference}
	if ch.Workload != "" {
		// As if typed: --workload NAME, with that tool's defaults.
		f.workload = addWorkloadFlags(pflag.NewFlagSet("setup", pflag.ContinueOnError), false)
		if err := f.workload.fs.Set("workload", ch.Workload); err != nil {
			return failure(err)
		}
	}
	return runWalk(ctx, f, os.Stdin, stdout, stderr)
}
