package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/perfbisect/perfbisect/internal/jsonl"
	"github.com/perfbisect/perfbisect/session"
	"github.com/perfbisect/perfbisect/session/report"
)

// newReportCmd is `perfbisect report FILE`: a session log as a report to
// paste into an incident review.
func newReportCmd(stdout, stderr io.Writer) *cobra.Command {
	var format, out string
	c := &cobra.Command{
		Use:   "report FILE",
		Short: "Write a session log as a report (Markdown, HTML or JSON)",
		Long: `report reads a session log and writes what the walk found: the conclusion
first, the host, the reference, each step's hypothesis, knobs, verdicts and
decision, the results table, charts, notes, errors and reverts, and the
command to redo the walk. --format html is one self-contained page with SVG
charts; --format json is the schema perfbisect.report/v1. A log cut short by
a crash still renders, up to its last complete line.`,
		Example: `  perfbisect report walk.jsonl
  perfbisect report walk.jsonl --format html -o walk.html`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			f := report.Format(format)
			if !f.Valid() {
				return usageError(fmt.Errorf("--format %q: want md, html or json", format))
			}
			evs, bad, err := readLog(args[0])
			if err != nil {
				return err
			}
			for _, b := range bad {
				fmt.Fprintf(stderr, "%s: %v\n", args[0], b)
			}
			r := report.Build(evs, bad)
			if out == "" || out == "-" {
				if err := r.Write(stdout, f); err != nil {
					return failure(err)
				}
				return nil
			}
			if err := r.WriteFile(out, f); err != nil {
				return failure(err)
			}
			return nil
		},
	}
	c.Flags().StringVar(&format, "format", string(report.FormatMarkdown), "md, html or json")
	c.Flags().StringVarP(&out, "output", "o", "", "write the report to this file (default: standard output)")
	return c
}

// readLog reads the session log that report and replay show: one that
// cannot be read, or holds no event, fails the command.
func readLog(path string) ([]session.Event, []*jsonl.SyntaxError, error) {
	evs, bad, err := session.ReadLogFile(path)
	if err != nil {
		return nil, nil, failure(err)
	}
	if len(evs) == 0 {
		return nil, nil, failure(fmt.Errorf("%s: no events in it (is it a session log?)", path))
	}
	return evs, bad, nil
}

// writeReports writes the report of the log at logPath next to it, in every
// format, and returns the report (nil when the log cannot be read) and the
// paths written. What goes wrong is said on stderr; a walk's end never
// fails on it.
func writeReports(logPath string, stderr io.Writer) (*report.Report, []string) {
	r, paths, errs := report.WriteBeside(logPath)
	for _, err := range errs {
		fmt.Fprintf(stderr, "report: %v\n", err)
	}
	return r, paths
}
