package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/session"
)

// The sentences of a report, the same in every format.

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
		return "none: " + session.NoReferenceText + "; the reproduce step is the baseline"
	}
	s := fmt.Sprintf("%s: %d seconds", r.Reference.File, r.Reference.Seconds)
	if r.Reference.File == "" {
		s = fmt.Sprintf("%d seconds (no file named)", r.Reference.Seconds)
	}
	if r.Reference.Median != nil {
		s += fmt.Sprintf(", median %s %s", r.metric, MetricText(r.metric, *r.Reference.Median))
	}
	if len(r.Reference.Mismatch) > 0 {
		s += "; ANOTHER WORKLOAD, compared anyway (--reference-mismatch-ok): " + strings.Join(r.Reference.Mismatch, "; ")
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
	if s.ExtendedS > 0 {
		t += fmt.Sprintf(" (the operator extended it by %.0f s)", s.ExtendedS)
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
			// A reproduce step has a verdict per metric: the table shows
			// the one the steps are judged on.
			if v.Against == against && v.Metric == r.metric {
				b, m = MetricText(r.metric, v.BaseMedian), MetricText(r.metric, v.StepMedian)
				if v.Ratio > 0 { // 0: no ratio (a baseline median of 0, or too few seconds)
					ratio = fmt.Sprintf("%.2fx", v.Ratio)
				}
			}
		}
		if b == "-" && s.Reproduce && !r.hasReference() {
			b = m
		}
		rows = append(rows, [5]string{s.ID, b, m, ratio, s.State})
	}
	return rows
}

func prefixed(p, s string) string {
	if s == "" {
		return ""
	}
	return p + s
}
