package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/session"
	"github.com/perfbisect/perfbisect/session/report"
	"github.com/perfbisect/perfbisect/session/verdict"
	"github.com/spf13/cobra"
)

func newCompareCmd(stdout, stderr io.Writer) *cobra.Command {
	var (
		step      string
		warmup    time.Duration
		threshold float64
	)
	c := &cobra.Command{
		Use:   "compare A B",
		Short: "Compare two runs second by second, benchstat-style",
		Long: `compare reads two runs (session logs, or 'perfbisect probe --json' output) and
prints, for each metric, the median of each with its 95% confidence interval,
the ratio B/A, the Mann-Whitney p-value and the number of seconds. '~' marks a
difference that is not significant. From a session log it takes the reproduce
step, or --step.`,
		Example: `  perfbisect compare last-night.jsonl tonight.jsonl
  perfbisect compare --step tmpfs session.jsonl session.jsonl`,
		Args: cobra.ExactArgs(2),
		RunE: func(_ *cobra.Command, args []string) error {
			if err := (verdict.Options{Threshold: threshold}).Validate(); err != nil {
				return usageError(fmt.Errorf("--threshold: %v", err))
			}
			if warmup < 0 {
				return usageError(fmt.Errorf("--warmup %v: want 0 or more", warmup))
			}
			ra, err := compareInput(args[0], step, stderr)
			if err != nil {
				return failure(err)
			}
			rb, err := compareInput(args[1], step, stderr)
			if err != nil {
				return failure(err)
			}
			a, b := verdict.Trim(ra.Samples, warmup), verdict.Trim(rb.Samples, warmup)
			for _, r := range []struct {
				name string
				s    []probe.Sample
			}{{args[0], a}, {args[1], b}} {
				if len(r.s) == 0 {
					return failure(fmt.Errorf("%s: no seconds left after the %v warm-up (a shorter --warmup?)", r.name, warmup))
				}
			}
			if ra.Workload != nil && rb.Workload != nil {
				if d := session.WorkloadDiff(*ra.Workload, *rb.Workload); len(d) > 0 {
					fmt.Fprintf(stdout, "DIFFERENT WORKLOADS (%s against %s): %s; the runs did not measure the same thing\n\n", args[0], args[1], strings.Join(d, "; "))
				}
			}
			rows, err := report.Comparison(stdout, args[0], args[1], a, b, threshold)
			switch {
			case err != nil:
				return failure(err)
			case rows == 0:
				return failure(errors.New("the two runs have no metric in common to compare (one measured only throughput, the other only latency?)"))
			}
			return nil
		},
	}
	c.Flags().StringVar(&step, "step", "", "in a session log, the step to take (default: the reproduce step)")
	c.Flags().DurationVar(&warmup, "warmup", 2*time.Second, "leading seconds of each run left out")
	c.Flags().Float64Var(&threshold, "threshold", 0.10, "relative change below which runs count as the same")
	return c
}

func compareInput(path, step string, stderr io.Writer) (*session.Run, error) {
	run, err := session.LoadRun(path, step)
	if err != nil {
		return nil, err
	}
	reportBad(stderr, path, run.Bad)
	return run, nil
}

// reportBad says which lines of a file were left out, the first few and
// how many more: a tool's log may have thousands.
func reportBad(stderr io.Writer, what string, bad []error) {
	for i, b := range bad {
		if i == 3 {
			fmt.Fprintf(stderr, "perfbisect: %s: %d more unreadable lines left out\n", what, len(bad)-i)
			return
		}
		fmt.Fprintf(stderr, "perfbisect: %s: %v\n", what, b)
	}
}
