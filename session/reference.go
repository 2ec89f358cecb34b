package session

import (
	"bytes"
	"fmt"
	"os"

	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/parse"
)

// Run is the per-second samples of one run, read from a file.
type Run struct {
	Samples []probe.Sample
	// Format is the tool whose saved output the file was ("sysbench",
	// "pgbench", "fio-json", …), or "" for a session log or probe output.
	Format string
	// Workload is what the file records of the workload that ran: a
	// session log's or probe output's spec, a tool output's tool alone;
	// nil when it says nothing (see WorkloadDiff).
	Workload *probe.Spec
	// Bad lists lines that could not be read (a torn tail of a log, lines
	// of a tool's output that did not parse); the run is what remains.
	Bad []error
}

// LoadRun reads a run from a session log (the samples of step, or of its
// reproduce step when step is ""), from `perfbisect probe --json` output
// (all its samples), or from the saved output of sysbench, pgbench or fio
// (detected from the content and, for a fio log, its name, as `perfbisect
// import` does), so last night's
// benchmark log can be a reference.
func LoadRun(path, step string) (*Run, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if format, err := parse.Resolve(path, data, "auto"); err == nil {
		if step != "" {
			return nil, fmt.Errorf("%s: saved %s output has no steps (leave out the step)", path, format)
		}
		res, err := parse.Parse(bytes.NewReader(data), format)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		run := &Run{Samples: res.Samples, Format: res.Tool, Workload: &probe.Spec{Workload: toolWorkload(res.Tool)}}
		for _, b := range res.Bad {
			run.Bad = append(run.Bad, b)
		}
		if len(run.Samples) == 0 {
			return nil, fmt.Errorf("%s: %s output without a per-second line (run it with --report-interval=1, -P 1 or --status-interval=1)", path, format)
		}
		return run, nil
	}
	evs, bad, err := ReadLogFile(path)
	if err != nil {
		return nil, err
	}
	run := &Run{}
	for _, b := range bad {
		run.Bad = append(run.Bad, b)
	}
	w := Fold(evs)
	switch {
	case w.Start != nil:
		run.Workload = &w.Start.Workload
	case w.Summary != nil && w.Summary.Workload.Workload != "":
		run.Workload = &w.Summary.Workload
	}
	switch s, ok := w.Step(step); {
	case ok:
		run.Samples = s.Samples
	case step != "":
	case w.Reproduce() != nil:
		run.Samples = w.Reproduce().Samples
	default: // probe output: its seconds belong to no step
		run.Samples = w.Loose
	}
	if len(run.Samples) == 0 {
		what := "a session log, 'perfbisect probe --json' output, or saved sysbench, pgbench or fio output"
		if step != "" {
			what = "a session log with a step " + step
		}
		return nil, fmt.Errorf("%s: no samples in it (want %s)", path, what)
	}
	return run, nil
}
