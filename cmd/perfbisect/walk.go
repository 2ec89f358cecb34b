package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/perfbisect/perfbisect/internal/pathx"
	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/host"
	"github.com/perfbisect/perfbisect/probe/journal"
	"github.com/perfbisect/perfbisect/probe/lab"
	"github.com/perfbisect/perfbisect/probe/tool"
	"github.com/perfbisect/perfbisect/session"
	"github.com/perfbisect/perfbisect/session/playbook"
	"github.com/perfbisect/perfbisect/tui"
	"github.com/spf13/cobra"
)

// exitRegressed is `run --fail-on-regression` when the reproduce step is
// slower than the reference: for nightly jobs.
const exitRegressed = 3

type walkFlags struct {
	playbook         string
	dir              string
	duration         time.Duration
	maxDuration      time.Duration
	reference        string
	record           string
	yes              bool
	dryRun           bool
	noTUI            bool
	failOnRegression bool
	mismatchOK       bool
	results          []string // STEP=FILE
	workload         *workloadFlags
}

func newRunCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	var f walkFlags
	c := &cobra.Command{
		Use:   "run",
		Short: "Walk a playbook: change one thing at a time, measure, judge, decide",
		Long: `run walks a playbook's steps on this host. Each step applies its knobs (after
saying exactly what they change and asking), runs the workload, puts every knob
back, judges the step against the reference and the reproduced regression, and
follows the playbook to the next step or a conclusion. Everything is recorded
in the session log.

SIGINT, SIGTERM and SIGHUP (a closed terminal, a dropped ssh) stop the step
and put every knob back before the log is closed and the reports written; a
closed stdout or stderr never stops the reverts. A revert that fails ends the
walk: no later step runs on a host left changed.

Exit codes:
  0    the walk concluded (or the operator quit)
  1    failed: a step or a revert failed, the reproduce step could not run
  2    usage: a bad flag or value, a --dir whose parent is missing, not a
       directory or not writable (found before any log is made)
  3    --fail-on-regression, and the reproduce step regressed
  130  interrupted by a signal`,
		Example: `  perfbisect run --no-tui                          # local-disk, data dir = current directory
  perfbisect run --no-tui --playbook ebs-write-regression --dir /var/lib/mysql-probe
  perfbisect run --no-tui --reference last-night.jsonl --fail-on-regression --yes
  perfbisect run --no-tui --dry-run                # say every change, make none
  perfbisect run --no-tui --workload sysbench --dir /data --duration 20s   # oltp_insert on a throwaway MariaDB
  perfbisect run --no-tui --workload pgbench --scale 10 --reference last-night-pgbench.txt`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if !c.Flags().Changed("playbook") {
				var err error
				if f.playbook, f.dir, err = defaultPlaybook(f.dir); err != nil {
					return failure(err)
				}
			}
			return runWalk(c.Context(), f, stdin, stdout, stderr)
		},
	}
	fl := c.Flags()
	fl.StringVar(&f.playbook, "playbook", "", "an embedded playbook's name (see 'perfbisect playbooks') or a YAML file (default: ebs-lab when the lab is up, else local-disk)")
	fl.StringVar(&f.dir, "dir", "", "data directory of the workload (default: the current directory)")
	fl.DurationVar(&f.duration, "duration", 0, "length of every step (default: the playbook's)")
	fl.DurationVar(&f.maxDuration, "max-duration", 0, "how far a step whose verdict is not yet known is extended (default: 3x its duration)")
	fl.StringVar(&f.reference, "reference", "", "the known-good run: a session log, 'perfbisect probe --json' output, or saved sysbench, pgbench or fio output")
	fl.StringVar(&f.record, "record", "", "session log file (default: perfbisect-YYYYMMDD-HHMMSS.jsonl here)")
	fl.BoolVar(&f.yes, "yes", false, "approve every change to the host without asking")
	fl.BoolVar(&f.dryRun, "dry-run", false, "describe every change, apply none, run no workload")
	fl.BoolVar(&f.noTUI, "no-tui", false, "print the walk as it goes instead of the interactive view")
	fl.BoolVar(&f.mismatchOK, "reference-mismatch-ok", false, "use a --reference whose workload differs from the walk's (the difference is said in the log and the report)")
	fl.BoolVar(&f.failOnRegression, "fail-on-regression", false, "exit 3 when the reproduce step regressed against --reference")
	fl.StringArrayVar(&f.results, "result", nil, "STEP=FILE: the measurement of a step made by hand (manual, host) taken on another machine, as for --reference (repeatable)")
	f.workload = addWorkloadFlags(fl, false)
	return c
}

func runWalk(ctx context.Context, f walkFlags, stdin io.Reader, stdout, stderr io.Writer) error {
	pb, err := loadPlaybook(f.playbook)
	if err != nil {
		return usageError(err)
	}
	if f.failOnRegression && f.reference == "" {
		return usageError(errors.New("--fail-on-regression needs --reference (the known-good run to compare with)"))
	}
	if f.failOnRegression && !f.noTUI {
		return usageError(errors.New("--fail-on-regression is for unattended runs, whose exit code a job reads: add --no-tui"))
	}
	spec := pb.Workload
	if f.workload != nil {
		spec = f.workload.apply(spec)
	}
	if f.dir == "" {
		f.dir = "."
	}
	if spec.Dir, err = pathx.CheckDir(f.dir); err != nil {
		return usageError(err)
	}
	if err := f.checkDurations(); err != nil {
		return usageError(err)
	}
	if f.duration > 0 {
		spec.Duration = probe.Duration(f.duration)
	}
	if err := spec.Validate(); err != nil {
		return usageError(fmt.Errorf("workload: %v", err))
	}
	// A missing sysbench or mariadbd is found now, not in the first step.
	if err := tool.Require(spec); err != nil && !f.dryRun {
		return failure(err)
	}
	local := host.NewLocal()
	opt := session.Options{
		Playbook: pb, Host: local, Workload: spec,
		Duration: f.duration, MaxDuration: f.maxDuration,
		DryRun: f.dryRun, Version: version,
	}
	if opt.Results, err = resultSteps(f.results); err != nil {
		return usageError(err)
	}
	// A step too short to judge is a flag to fix, found before the log is
	// made: a rerun with a longer --duration must not meet an empty log.
	if err := opt.Validate(); err != nil {
		return usageError(err)
	}
	if err := loadResults(opt.Results, stderr); err != nil {
		return usageError(err)
	}
	jdir := journal.Dir(local.Env.StateDir)
	if err := refuseIfDirty(jdir); err != nil {
		return err
	}
	if f.reference != "" {
		ref, err := session.LoadRun(f.reference, "")
		if err != nil {
			return failure(fmt.Errorf("reference: %w", err))
		}
		reportBad(stderr, "reference "+f.reference, ref.Bad)
		opt.Reference, opt.ReferenceFile = ref.Samples, f.reference
		if ref.Workload != nil {
			opt.ReferenceMismatch = session.WorkloadDiff(*ref.Workload, spec)
		}
		if len(opt.ReferenceMismatch) > 0 && !f.mismatchOK {
			return usageError(fmt.Errorf("reference %s ran another workload: %s (measure the reference with the walk's workload, or pass --reference-mismatch-ok to compare anyway)",
				f.reference, strings.Join(opt.ReferenceMismatch, "; ")))
		}
	}

	if !f.noTUI {
		if !terminalIO() {
			return usageError(errNoTerminal)
		}
		if f.dryRun {
			return usageError(errors.New("--dry-run prints the plan: use it with --no-tui"))
		}
		log, err := createLog(f.record)
		if err == nil {
			local.Journal, err = journal.Open(jdir, log.Path())
		}
		if err != nil {
			return failure(err)
		}
		return runTUI(ctx, opt, f.yes, log, stderr)
	}

	term := tui.NewPrompt(stdin, stdout)
	if !f.yes && !f.dryRun && pb.ChangesHost() {
		if !term.Interactive() {
			return usageError(fmt.Errorf("playbook %s changes this host and there is no terminal to ask first: run it in a terminal, pass --yes to approve every change, or --dry-run to see them", pb.Name))
		}
		opt.Confirm = term.Confirm
	}
	if term.Interactive() {
		opt.Operator = term
	}

	log, err := createLog(f.record)
	if err == nil {
		local.Journal, err = journal.Open(jdir, log.Path())
	}
	if err != nil {
		return failure(err)
	}
	var pr *tui.Printer // prints what the runner's walk has taken in
	said := false
	opt.Emit = func(e session.Event) {
		if err := log.Write(e); err != nil && !said {
			said = true // the error sticks: Close returns it
			fmt.Fprintf(stderr, "perfbisect: %v (the walk goes on; the log is incomplete)\n", err)
		}
		pr.Event(e)
	}
	r, err := session.NewRunner(opt)
	if err != nil {
		return failure(err)
	}
	pr = tui.NewPrinter(stdout, r.Walk())
	fmt.Fprintf(stdout, "session log: %s\n", log.Path())
	guarded.Store(true)
	_, werr := r.Run(ctx)
	guarded.Store(false)
	logErr := log.Close()
	// The table and the reports come from the log as written: one report.
	rep, reports := writeReports(log.Path(), stderr)
	if rep != nil {
		pr.Table(rep)
	}
	fmt.Fprintf(stdout, "session log: %s\n", log.Path())
	for _, p := range reports {
		fmt.Fprintf(stdout, "report: %s\n", p)
	}
	// A failed revert is exit 1 even under a signal: the host is changed.
	if err := walkFailure(r.Walk()); err != nil {
		return err
	}
	switch {
	case werr != nil && ctx.Err() != nil:
		return errInterrupted
	case werr != nil:
		return failure(werr)
	case logErr != nil:
		return failure(fmt.Errorf("session log: %v", logErr))
	}
	if f.failOnRegression && r.Walk().Regressed() {
		return &exitError{exitRegressed, errors.New("the reproduce step regressed against the reference")}
	}
	return nil
}

// checkDurations refuses lengths that cannot mean what was asked, rather
// than ignoring them (zero is the playbook's own).
func (f walkFlags) checkDurations() error {
	switch {
	case f.duration < 0:
		return fmt.Errorf("--duration %v: want a positive length, like 30s", f.duration)
	case f.maxDuration < 0:
		return fmt.Errorf("--max-duration %v: want a positive length, like 90s", f.maxDuration)
	case f.maxDuration > 0 && f.duration > 0 && f.maxDuration < f.duration:
		return fmt.Errorf("--max-duration %v is shorter than --duration %v: a step is extended up to it, never cut short (want at least %v)", f.maxDuration, f.duration, f.duration)
	}
	return nil
}

// walkFailure is the exit a walk that ran to its end gives, headless or
// in the screen: a failure when the session ended failed (a revert failed)
// or a step failed (the reproduce step could not run, a knob or the
// workload failed), even if the playbook went on to a conclusion.
func walkFailure(w *session.Walk) error {
	if e := w.End; e != nil && e.Ended == session.EndFailed {
		return failure(errors.New(e.Error))
	}
	for _, s := range w.Steps {
		if s.State == session.StateFailed {
			return failure(fmt.Errorf("step %s failed: %s", s.ID, s.Reason))
		}
	}
	return nil
}

// defaultPlaybook chooses the playbook for this host: ebs-lab (on the lab's
// volume, unless --dir says otherwise) when the lab is up, local-disk
// elsewhere. EC2 hosts will get ebs-write-regression.
func defaultPlaybook(dir string) (string, string, error) {
	st, err := lab.Current()
	if err != nil {
		return "", "", fmt.Errorf("%w (or pass --playbook)", err)
	}
	if st == nil {
		return "local-disk", dir, nil
	}
	if dir == "" {
		dir = st.DataDir
	}
	return "ebs-lab", dir, nil
}

// createLog creates the session log, by default named for the time here.
func createLog(path string) (*session.LogWriter, error) {
	if path == "" {
		path = time.Now().Format("perfbisect-20060102-150405.jsonl")
	}
	return session.CreateLog(path)
}

// loadPlaybook is the --playbook: a file, or an embedded playbook's name.
func loadPlaybook(name string) (*playbook.Playbook, error) {
	pb, err := playbook.Load(name)
	if errors.Is(err, playbook.ErrNotFound) {
		return nil, fmt.Errorf("--playbook %w", err)
	}
	return pb, err
}

// resultSteps reads the --result flags into the steps they name, each
// with its file still to read (loadResults), once the steps are checked.
func resultSteps(flags []string) (map[string]*session.Result, error) {
	if len(flags) == 0 {
		return nil, nil
	}
	m := map[string]*session.Result{}
	for _, v := range flags {
		step, file, ok := strings.Cut(v, "=")
		if !ok || step == "" || file == "" {
			return nil, fmt.Errorf("--result %q: want STEP=FILE, like host=bare.jsonl", v)
		}
		if _, dup := m[step]; dup {
			return nil, fmt.Errorf("--result %s given twice", step)
		}
		m[step] = &session.Result{File: file}
	}
	return m, nil
}

// loadResults reads the file of every --result.
func loadResults(results map[string]*session.Result, stderr io.Writer) error {
	for step, r := range results {
		res, err := session.LoadResult(r.File)
		if err != nil {
			return fmt.Errorf("--result %s: %v", step, err)
		}
		reportBad(stderr, "result "+r.File, res.Run.Bad)
		*r = *res
	}
	return nil
}
