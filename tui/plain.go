package tui

import (
	"fmt"
	"io"
	"strings"

	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/session"
	"github.com/perfbisect/perfbisect/session/report"
)

// Printer is the plain face of a walk, for `run --no-tui`, a pipe or CI:
// it prints each step, its knobs, a compact line per second, its verdicts
// and the playbook's decision as they come. What it says of the walk's
// state it reads from the walk it is given (the runner's, which has taken
// each event in before it is printed).
type Printer struct {
	w    io.Writer
	walk *session.Walk
	n    int
}

// NewPrinter prints to w what walk's events say.
func NewPrinter(w io.Writer, walk *session.Walk) *Printer { return &Printer{w: w, walk: walk} }

// Event prints one event.
func (p *Printer) Event(e session.Event) {
	switch d := e.Data.(type) {
	case *session.SessionStart:
		fmt.Fprintf(p.w, "perfbisect %s: playbook %s (%s) on %s\n", d.Version, d.Playbook, d.Source, d.Host)
		fmt.Fprintf(p.w, "workload: %s in %s\n", d.Workload.Describe(), d.Workload.Dir)
		if d.Reference != "" {
			fmt.Fprintf(p.w, "reference: %s\n", d.Reference)
		} else {
			fmt.Fprintf(p.w, "reference: none: %s; the reproduce step is the baseline for the others\n", session.NoReferenceText)
		}
		if len(d.ReferenceMismatch) > 0 {
			fmt.Fprintf(p.w, "reference runs ANOTHER WORKLOAD, compared anyway (--reference-mismatch-ok): %s\n", strings.Join(d.ReferenceMismatch, "; "))
		}
		if d.DryRun {
			fmt.Fprintln(p.w, "DRY RUN: changes are described, none is made, nothing is measured")
		}
	case *session.HostFacts:
		fmt.Fprintf(p.w, "host: %s, kernel %s, %d CPUs; data dir on %s\n", d.Hostname, d.Kernel, d.CPUs, describeFS(d))
		if d.Lab != "" {
			fmt.Fprintf(p.w, "lab: %s\n", d.Lab)
		}
	case *session.StepStart:
		p.n++
		fmt.Fprintf(p.w, "\n[%d] %s: %s\n", p.n, e.Step, d.Title)
		fmt.Fprintf(p.w, "    hypothesis: %s\n", d.Hypothesis)
		for _, k := range d.Knobs {
			fmt.Fprintf(p.w, "    knob: %s\n", k)
		}
	case *session.KnobEvent:
		switch d.Action {
		case session.KnobApplied:
			fmt.Fprintf(p.w, "    applied %s%s\n", d.Change.Knob, suffix(": now ", d.Change.After))
		case session.KnobReverted:
			fmt.Fprintf(p.w, "    put back %s: %s\n", d.Change.Knob, strings.Join(d.Change.Undo, "; "))
		case session.KnobRevertFailed:
			fmt.Fprintf(p.w, "    !!! REVERT FAILED %s: %s\n", d.Change.Knob, d.Error)
		case session.KnobUnavailable:
			fmt.Fprintf(p.w, "    unavailable here: %s: %s\n", d.Change.Knob, d.Error)
		case session.KnobPlanned:
			fmt.Fprintf(p.w, "    plan %s: %s (put back: %s)\n", d.Change.Knob, strings.Join(d.Change.Do, "; "), strings.Join(d.Change.Undo, "; "))
		}
	case *session.Elsewhere:
		fmt.Fprintf(p.w, "    %s\n", elsewhereLine(d))
	case *probe.Sample:
		fmt.Fprintf(p.w, "    %3ds %10.1f ops/s %s%s\n", d.Sec, d.OpsPerS, latencies(*d), errorsText(d.Errors))
	case *session.Verdict:
		fmt.Fprintf(p.w, "    vs %-10s %s\n", d.Against, d.Verdict.String())
	case *session.StepEnd:
		if s, ok := p.walk.Step(e.Step); ok && s.Reproduce && d.Reason != "" && (d.State == session.StateRegressed || d.State == session.StateSame) {
			// What each metric found, and which the later steps are judged on.
			fmt.Fprintf(p.w, "    verdict: %s\n", d.Reason)
		}
	case *session.Decision:
		var state session.State
		if s, ok := p.walk.Step(e.Step); ok {
			state = s.State
		}
		switch {
		case d.Conclusion != "":
			fmt.Fprintf(p.w, "    => %s: %s\n", state, d.Meaning)
		case d.Next != "":
			fmt.Fprintf(p.w, "    => %s%s; next: %s\n", state, suffix(": ", d.Meaning), d.Next)
		}
	case *session.ErrorEvent:
		fmt.Fprintf(p.w, "    error: %s%s\n", d.Message, suffix(" -> ", d.Action))
	case *session.SessionEnd:
		switch {
		case d.Conclusion != "":
			fmt.Fprintf(p.w, "\nconclusion: %s\n", d.Conclusion)
		case d.Error != "":
			fmt.Fprintf(p.w, "\nsession %s: %s\n", d.Ended, d.Error)
		}
	}
}

// Table prints the seeds' results table of the walk's report, and then
// every knob the log left applied.
func (p *Printer) Table(r *report.Report) {
	defer p.notPutBack(r)
	header, rows := r.Table()
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(p.w, "\n%-16s %18s %18s %11s  %s\n", header[0], header[1], header[2], header[3], header[4])
	for _, r := range rows {
		fmt.Fprintf(p.w, "%-16s %18s %18s %11s  %s\n", r[0], r[1], r[2], r[3], r[4])
	}
}

// notPutBack says, loudly and last, what the report found left applied.
func (p *Printer) notPutBack(r *report.Report) {
	for _, e := range r.Errors {
		if e.NotPutBack {
			fmt.Fprintf(p.w, "\n!!! %s (step %s) -> %s\n", e.Message, e.Step, e.Action)
		}
	}
}

func describeFS(f *session.HostFacts) string {
	if s := fsOn(f, "scheduler "); s != "" {
		return s + ", " + f.DataDir
	}
	return f.DataDir
}

func errorsText(n int64) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("  %d errors", n)
}

// latencies says the latencies a sample measured: " p50 0.120  p99 0.410  max 2.31 ms"
// for the probe, " p95 3.55 ms" for sysbench, " avg 1.20 ms" for pgbench.
func latencies(s probe.Sample) string {
	t := ""
	for _, f := range probe.Latencies(s.Measured()) {
		v, _ := s.Get(f)
		t += fmt.Sprintf(" %s %s ", f.Label(), probe.MsText(v))
	}
	if t == "" {
		return ""
	}
	return t[:len(t)-1] + " ms"
}

// elsewhereLine says where a step measured on another machine got its
// samples, and whether they are the walk's workload.
func elsewhereLine(d *session.Elsewhere) string {
	l := fmt.Sprintf("measured elsewhere: %d s from %s", d.Seconds, d.File)
	if d.Format != "" {
		l += " (saved " + d.Format + " output)"
	}
	return l + suffix("; NOT THE SAME WORKLOAD: ", d.Differs)
}
