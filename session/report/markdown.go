package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/guptarohit/asciigraph"
	"github.com/perfbisect/perfbisect/probe"
)

// Markdown writes the report as Markdown: the conclusion first, then the
// host, the reference, the timeline of steps, the results table, text
// charts, the notes, errors and reverts, and the commands to redo the walk.
func (r *Report) Markdown(out io.Writer) error {
	w := bufio.NewWriter(out)
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }

	title := "perfbisect report"
	if r.Session.Playbook != "" {
		title += ": " + r.Session.Playbook
	}
	if r.Session.Host != "" {
		title += " on " + r.Session.Host
	}
	p("# %s\n\n", mdText(title))
	p("**Conclusion.** %s\n\n", mdText(r.conclusionText()))
	if r.CutShort != "" {
		p("> **Cut short:** %s.\n\n", mdText(r.CutShort))
	}
	p("%s\n\n", mdText(r.sessionLine()))

	p("## Host\n\n")
	for _, l := range r.hostLines() {
		p("- %s\n", mdText(l))
	}
	p("\n## Reference\n\n%s\n\n", mdText(r.referenceLine()))

	p("## Timeline\n\n")
	if len(r.Steps) == 0 {
		p("No step started.\n\n")
	}
	for i, s := range r.Steps {
		p("### %d. %s: %s\n\n", i+1, mdCode(s.ID), mdText(s.Title))
		if s.Hypothesis != "" {
			p("- **Hypothesis:** %s\n", mdText(s.Hypothesis))
		}
		for _, k := range s.Knobs {
			p("- **Knob:** %s\n", mdCode(k.Text))
			for _, a := range k.Actions {
				p("  - %s\n", r.knobActionMD(a))
			}
		}
		p("- **Measured:** %s\n", mdText(measuredText(s)))
		for _, v := range s.Verdicts {
			p("- **Verdict** %s\n  - %s\n", mdText(verdictText(v)), mdText(v.Why))
		}
		p("- **State:** %s%s\n", mdText(s.State), mdText(prefixed(": ", s.Reason)))
		if d := s.Decision; d != nil {
			if d.Meaning != "" {
				p("- **Meant:** %s\n", mdText(d.Meaning))
			}
			switch {
			case d.Conclusion != "":
				p("- **Next:** the walk concludes.\n")
			case d.Next != "":
				p("- **Next:** %s\n", mdCode(d.Next))
			}
		}
		p("\n")
	}

	p("## Results\n\n")
	base, _ := r.baseline()
	m := r.metric
	p("| step | %s | %s | multiplier | outcome |\n", mdCell(base+" "+m), mdCell("step "+m))
	p("|---|---:|---:|---:|---|\n")
	for _, row := range r.table() {
		p("| %s | %s | %s | %s | %s |\n", mdCell(row[0]), mdCell(row[1]), mdCell(row[2]), mdCell(row[3]), mdCell(row[4]))
	}

	p("\n## Charts\n\nPer-second throughput (ops/s) and p99 latency (ms) of each step (or the latency its workload measures).\n\n")
	any := false
	for _, s := range r.Steps {
		if len(s.samples) < 2 {
			continue
		}
		any = true
		name, _, lat := latency("p99_ms", s.samples)
		p("```text\n%s\n\n%s\n```\n\n", asciiChart(s.samples, func(x probe.Sample) float64 { return x.OpsPerS }, s.ID+": ops/s per second"),
			asciiChart(s.samples, lat, s.ID+": "+strings.TrimSuffix(name, "_ms")+" ms per second"))
	}
	if !any {
		p("No step has two seconds or more to chart.\n\n")
	}

	p("## Notes\n\n")
	if len(r.Notes) == 0 {
		p("None.\n")
	}
	for _, n := range r.Notes {
		p("- %s%s: %s\n", n.Time.UTC().Format(time.TimeOnly), mdText(prefixed(" in ", n.Step)), mdText(n.Text))
	}

	p("\n## Errors and reverts\n\n")
	inc := r.incidents()
	for _, x := range inc {
		switch x.Kind {
		case "error":
			p("- %s%s: %s%s\n", x.Time.UTC().Format(time.TimeOnly), mdText(prefixed(" in ", x.Step)), mdText(x.Text), mdText(prefixed(" → ", x.Action)))
		case "revert_failed":
			p("- %s%s: **REVERT FAILED** %s%s\n", x.Time.UTC().Format(time.TimeOnly), mdText(prefixed(" in ", x.Step)), mdText(x.Text), mdText(prefixed(" → ", x.Action)))
		case "reverted":
			p("- %s in %s: put back %s: %s\n", x.Time.UTC().Format(time.TimeOnly), mdText(x.Step), mdCode(x.Knob), mdText(x.Text))
		case "bad_line":
			p("- log %s\n", mdText(x.Text))
		}
	}
	if len(inc) == 0 {
		p("None.\n")
	}

	p("\n## Redo the walk\n\n")
	if len(r.Commands) == 0 {
		p("The log has no session event to take the playbook from.\n")
	} else {
		p("```sh\n%s\n```\n", strings.Join(r.Commands, "\n"))
	}
	return w.Flush()
}

func (r *Report) knobActionMD(a KnobAction) string {
	at := a.Time.UTC().Format(time.TimeOnly)
	switch a.Action {
	case "planned":
		return fmt.Sprintf("%s planned: %s (put back: %s)", at, mdText(strings.Join(a.Do, "; ")), mdText(strings.Join(a.Undo, "; ")))
	case "applied":
		return fmt.Sprintf("%s applied%s%s", at, mdText(prefixed(": before ", a.Before)), mdText(prefixed(", now ", a.After)))
	case "reverted":
		return fmt.Sprintf("%s reverted: %s", at, mdText(strings.Join(a.Undo, "; ")))
	case "revert_failed":
		return fmt.Sprintf("%s **REVERT FAILED**: %s (put back by hand: %s)", at, mdText(a.Error), mdText(strings.Join(a.Undo, "; ")))
	}
	return fmt.Sprintf("%s %s%s", at, mdText(a.Action), mdText(prefixed(": ", a.Error)))
}

// sessionLine says what ran, when.
func (r *Report) sessionLine() string {
	s := r.Session
	parts := []string{}
	if s.Playbook != "" {
		parts = append(parts, fmt.Sprintf("Playbook %s (%s)", s.Playbook, s.Source))
	}
	if s.Workload.Workload != "" {
		parts = append(parts, fmt.Sprintf("workload %s in %s", s.Workload.Describe(), s.Workload.Dir))
	}
	if s.Started != nil {
		t := "started " + s.Started.UTC().Format(time.RFC3339)
		if s.Finished != nil {
			t += fmt.Sprintf(", lasted %s", s.Finished.Sub(*s.Started).Round(time.Second))
		}
		parts = append(parts, t)
	}
	ended := r.Ended
	if ended == "" {
		ended = "without an end (the walk did not finish)"
	}
	parts = append(parts, "ended "+ended)
	if s.Version != "" {
		parts = append(parts, "perfbisect "+s.Version)
	}
	if s.DryRun {
		parts = append(parts, "DRY RUN: nothing was changed or measured")
	}
	return strings.Join(parts, "; ") + "."
}

func (r *Report) hostLines() []string {
	h := r.Host
	if h == nil {
		return []string{"no host facts in the log"}
	}
	cpu := ""
	if h.CPU != "" {
		cpu = " (" + h.CPU + ")"
	}
	l := []string{fmt.Sprintf("%s, kernel %s, %d CPUs%s%s", h.Hostname, h.Kernel, h.CPUs, cpu, memText(h.MemoryBytes))}
	fs := h.Filesystem
	if h.MountPoint != "" {
		fs += " mounted at " + h.MountPoint
	}
	if h.MountOptions != "" {
		fs += " (" + h.MountOptions + ")"
	}
	l = append(l, "data dir "+h.DataDir+prefixed(" on ", strings.TrimSpace(fs)))
	if h.Device != "" {
		d := "device " + h.Device + prefixed(", scheduler ", h.Scheduler)
		if h.Rotational != nil {
			d += fmt.Sprintf(", rotational %t", *h.Rotational)
		}
		l = append(l, d)
	}
	l = append(l, fmt.Sprintf("root: %t", h.Root))
	if h.Lab != "" {
		l = append(l, "lab: "+h.Lab)
	}
	return l
}

func memText(b int64) string {
	if b <= 0 {
		return ""
	}
	return fmt.Sprintf(", %.1f GiB memory", float64(b)/(1<<30))
}

func (r *Report) referenceLine() string {
	if !r.hasReference() {
		return "none: the reproduce step is the baseline"
	}
	s := fmt.Sprintf("%s: %d seconds", r.Reference.File, r.Reference.Seconds)
	if r.Reference.File == "" {
		s = fmt.Sprintf("%d seconds (no file named)", r.Reference.Seconds)
	}
	if r.Reference.Median != nil {
		s += fmt.Sprintf(", median %s %s", r.metric, MetricText(r.metric, *r.Reference.Median))
	}
	return s
}

func measuredText(s *Step) string {
	if len(s.samples) == 0 && s.Summary == nil {
		return "nothing"
	}
	t := fmt.Sprintf("%d seconds", len(s.samples))
	if s.DurationS > 0 {
		t += fmt.Sprintf(" in %.1f s", s.DurationS)
	}
	if m := s.Summary; m != nil {
		t += ": " + summaryText(m)
		if m.Server != "" {
			t += "; server: " + m.Server
		}
		if m.Errors > 0 {
			t += fmt.Sprintf(", %d errors", m.Errors)
		}
		if m.Ended != "" && m.Ended != probe.EndCompleted {
			t += ", " + string(m.Ended) + prefixed(": ", m.Error)
		}
	}
	return t
}

// table is the seeds' table: step, baseline median, step median,
// multiplier, outcome.
// Table is the seeds' results table: its column names (step, the
// baseline's median, the step's median, multiplier, outcome) and a row per
// step. The baseline is the reference when there is one, else the
// reproduce step. The headless walk prints it; the reports lay it out.
func (r *Report) Table() (header [5]string, rows [][5]string) {
	base, _ := r.baseline()
	return [5]string{"step", base + " " + r.metric, "step " + r.metric, "multiplier", "outcome"}, r.table()
}

func (r *Report) table() [][5]string {
	_, against := r.baseline()
	var rows [][5]string
	for _, s := range r.Steps {
		b, m, ratio := "-", "-", "-"
		if s.Median != nil {
			m = MetricText(r.metric, *s.Median)
		}
		for _, v := range s.Verdicts {
			if v.Against == against {
				b, m, ratio = MetricText(r.metric, v.BaseMedian), MetricText(r.metric, v.StepMedian), fmt.Sprintf("%.2fx", v.Ratio)
			}
		}
		if b == "-" && s.Reproduce && !r.hasReference() {
			b = m
		}
		rows = append(rows, [5]string{s.ID, b, m, ratio, s.State})
	}
	return rows
}

func asciiChart(samples []probe.Sample, f func(probe.Sample) float64, caption string) string {
	vals := make([]float64, len(samples))
	for i, s := range samples {
		vals[i] = finite(f(s))
	}
	if len(vals) > 120 {
		vals = meanBuckets(vals, 120)
	}
	return asciigraph.Plot(vals, asciigraph.Height(6), asciigraph.Width(60), asciigraph.Caption(caption))
}

func meanBuckets(v []float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		lo, hi := i*len(v)/n, (i+1)*len(v)/n
		sum := 0.0
		for _, x := range v[lo:hi] {
			sum += x
		}
		out[i] = sum / float64(hi-lo)
	}
	return out
}

var mdEscaper = strings.NewReplacer(`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "<", "&lt;", ">", "&gt;", "|", `\|`, "\n", " ")

// mdText escapes text for Markdown prose.
func mdText(s string) string { return mdEscaper.Replace(s) }

// mdCell escapes a table cell.
func mdCell(s string) string { return mdText(s) }

// mdCode puts s in a code span.
func mdCode(s string) string {
	if s == "" {
		return ""
	}
	s = strings.ReplaceAll(s, "\n", " ")
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if fence != "`" {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

func prefixed(p, s string) string {
	if s == "" {
		return ""
	}
	return p + s
}
