package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/perfbisect/perfbisect/internal/shell"
	"github.com/perfbisect/perfbisect/probe/host"
	"github.com/perfbisect/perfbisect/probe/journal"
	"github.com/spf13/cobra"
)

func newRecoverCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	var yes, dryRun bool
	c := &cobra.Command{
		Use:   "recover",
		Short: "Put back what a perfbisect that died (kill -9, a crash, a power cut) left changed on this host",
		Long: `recover reads the crash journal, where every run records how to undo a change
before making it, and lists what a session that is no longer running left
applied (a tmpfs still mounted, a scheduler or sysctl still changed, a shell
step's revert never run), with the session log it belongs to. Then it puts
each back, after asking (or with --yes). The changes of a perfbisect still
running are its own and are left alone.`,
		Example: `  perfbisect recover --dry-run   # what a dead session left changed, and how it would be undone
  perfbisect recover --yes       # undo it all`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return recoverHost(c.Context(), journalDir(), yes, dryRun, stdin, stdout)
		},
	}
	c.Flags().BoolVar(&yes, "yes", false, "undo without asking")
	c.Flags().BoolVar(&dryRun, "dry-run", false, "say what would be undone, and undo nothing")
	return c
}

// journalDir is this host's crash journal.
func journalDir() string { return journal.Dir(host.NewLocal().Env.StateDir) }

func recoverHost(ctx context.Context, dir string, yes, dryRun bool, stdin io.Reader, stdout io.Writer) error {
	dead, bad, err := journal.Dead(dir)
	if err != nil {
		return failure(err)
	}
	if len(dead) == 0 && len(bad) == 0 {
		fmt.Fprintf(stdout, "nothing to recover: no dead session left a change applied (journal %s)\n", dir)
		return nil
	}
	var plan []string
	for _, e := range dead {
		p := describeEntry(e)
		for _, a := range e.Undo {
			p += "\n      undo: " + a.Hand()
		}
		plan = append(plan, p)
	}
	if err := confirmPlan(ctx, "recover", plan, "none: this puts the host back", yes, dryRun, stdin, stdout); err != nil {
		return err
	}
	failed := 0
	// An undo begun is finished: a Ctrl-C stops before the next one, a
	// second one only warns (guarded).
	guarded.Store(true)
	defer guarded.Store(false)
	for _, e := range dead {
		if ctx.Err() != nil {
			fmt.Fprintf(stdout, "interrupted: not put back yet: %s (run perfbisect recover again)\n", e.What)
			failed++
			continue
		}
		begin := time.Now()
		if err := journal.Recover(context.WithoutCancel(ctx), e); err != nil {
			failed++
			fmt.Fprintf(stdout, "NOT PUT BACK: %v\n", err)
			continue
		}
		fmt.Fprintf(stdout, "put back: %s (%.1f s)\n", e.What, time.Since(begin).Seconds())
	}
	for _, b := range bad {
		failed++
		fmt.Fprintf(stdout, "UNREADABLE journal entry %s: %v (something may still be changed: read it, put back by hand what it names, then rm %s)\n",
			b.File, b.Err, shell.Quote(b.File))
	}
	if failed > 0 {
		return failure(fmt.Errorf("%d of %d changes could not be put back: do them by hand as said above", failed, len(dead)+len(bad)))
	}
	return nil
}

// describeEntry is one change a dead session left: what, since when, and
// the session log it belongs to.
func describeEntry(e journal.Entry) string {
	s := fmt.Sprintf("%s (knob %s", e.What, e.Knob)
	if e.Step != "" {
		s += ", step " + e.Step
	}
	s += fmt.Sprintf(") since %s, by perfbisect pid %d", e.Since.Local().Format("2006-01-02 15:04:05"), e.PID)
	if e.Session != "" {
		s += ", session log " + e.Session
	}
	return s
}

// refuseIfDirty is the start of every walk: a dead session's changes still
// applied would be measured as this host's state, and a new walk's reverts
// would put back the wrong "before".
func refuseIfDirty(dir string) error {
	dead, bad, err := journal.Dead(dir)
	if err != nil {
		return failure(err)
	}
	if len(dead) == 0 && len(bad) == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "a perfbisect that is no longer running left this host changed; run 'perfbisect recover' to put it back before a new walk:")
	for _, e := range dead {
		b.WriteString("\n  - " + describeEntry(e))
	}
	for _, x := range bad {
		b.WriteString("\n  - an unreadable journal entry " + x.File)
	}
	return usageError(errors.New(b.String()))
}
