package session

import (
	"os"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/probe"
)

// events turns payloads of one step into events a second apart.
func events(step string, data ...any) []Event {
	at := time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC)
	var out []Event
	for i, d := range data {
		s := step
		if _, ok := d.(*SessionStart); ok {
			s = ""
		}
		out = append(out, NewEvent(at.Add(time.Duration(i)*time.Second), s, d))
	}
	return out
}

// A log written before the session event listed its steps still reads:
// its playbook's YAML gives them, with its metric and warm-up, once.
func TestWalkUpgradesAnOldLog(t *testing.T) {
	yaml, err := os.ReadFile("testdata/quick.yaml")
	if err != nil {
		t.Fatal(err)
	}
	w := Fold(events("", &SessionStart{Playbook: "quick", Source: "testdata/quick.yaml", YAML: string(yaml)}))
	if len(w.Steps) != 4 || w.Steps[0].ID != "reproduce" || !w.Steps[0].Reproduce || w.Steps[1].Knobs[0].Knob != "tmpfs" {
		t.Fatalf("steps %+v, want the playbook's four", w.Steps)
	}
	for _, s := range w.Steps {
		if s.State != StatePending {
			t.Errorf("step %s %s before it ran, want pending", s.ID, s.State)
		}
	}
	if w.Warmup() != time.Second || w.Metric() != "p50_ms" || w.Start.Threshold != 0.1 {
		t.Errorf("warm-up %v, metric %s, threshold %g; want the playbook's 1s, p50_ms, 0.1", w.Warmup(), w.Metric(), w.Start.Threshold)
	}
	if next, ok := w.Next(); !ok || next != "reproduce" {
		t.Errorf("next %q, want the first step", next)
	}
	// Without a playbook it can read: the defaults.
	w = Fold(events("", &SessionStart{YAML: "not: a playbook"}))
	if len(w.Steps) != 0 || w.Warmup() != 2*time.Second || w.Metric() != "p50_ms" {
		t.Errorf("no playbook: %d steps, warm-up %v, metric %s; want none, the default 2s, p50_ms", len(w.Steps), w.Warmup(), w.Metric())
	}
}

func TestWalkFollowsAStep(t *testing.T) {
	start := &SessionStart{Metric: "p99_ms", WarmupS: 3, Steps: []PlannedStep{{ID: "reproduce", Reproduce: true}, {ID: "tmpfs"}}}
	evs := events("tmpfs", start, &StepStart{Title: "tmpfs", DurationS: 10},
		&probe.Sample{Sec: 1, OpsPerS: 10, P99Ms: 3}, &Extend{BySeconds: 10, PlannedS: 20, MaxS: 40},
		&probe.Sample{Sec: 2, OpsPerS: 10, P99Ms: 3})
	w := NewWalk()
	for _, e := range evs {
		w.Apply(e)
	}
	cur := w.Current()
	if cur == nil || cur.ID != "tmpfs" || cur.State != StateRunning || len(cur.Samples) != 2 {
		t.Fatalf("current %+v, want tmpfs running with 2 seconds", cur)
	}
	if cur.PlannedS != 20 || cur.ExtendedS != 10 {
		t.Errorf("planned %g, extended %g; want 20, 10", cur.PlannedS, cur.ExtendedS)
	}
	for _, e := range events("tmpfs", &StepEnd{State: StateGone, DurationS: 21}, &Decision{Next: "fsync"}) {
		w.Apply(e)
	}
	if w.Current() != nil || w.Decided() != cur || cur.State != StateGone {
		t.Errorf("after its end: current %v, decided %v, state %s", w.Current(), w.Decided(), cur.State)
	}
	// The operator ran tmpfs first: the walk goes where it led.
	if next, ok := w.Next(); !ok || next != "fsync" {
		t.Errorf("next %q, want fsync", next)
	}
	if w.Index("fsync") != -1 {
		t.Errorf("fsync at %d before an event names it", w.Index("fsync"))
	}
	w.Apply(events("fsync", &StepStart{Title: "fsync off"})[0])
	if i := w.Index("fsync"); i != 2 || w.Steps[i].State != StateRunning || w.Current() != w.Steps[i] {
		t.Errorf("a step the start did not list is added when an event names it: at %d", i)
	}
	if w.Metric() != "p99_ms" || w.Warmup() != 3*time.Second {
		t.Errorf("metric %s, warm-up %v; want the session's p99_ms, 3s", w.Metric(), w.Warmup())
	}
}

// The metric before any verdict is the playbook's, or the nearest one the
// workload measures; once judged, what the verdicts say.
func TestWalkMetric(t *testing.T) {
	spec := probe.DefaultFor(probe.WorkloadPgbench)
	start := &SessionStart{Metric: "p50_ms", WarmupS: 1, Workload: spec, Steps: []PlannedStep{{ID: "reproduce", Reproduce: true}}}
	w := Fold(events("reproduce", start))
	if got := w.Metric(); got != "avg_ms" {
		t.Errorf("before a sample: %s, want avg_ms (pgbench measures no p50)", got)
	}
	w = Fold(events("reproduce", start, &StepStart{}, &probe.Sample{Sec: 1, OpsPerS: 5, P95Ms: 2, Real: probe.FieldOps | probe.FieldP95}))
	if got := w.Metric(); got != "p95_ms" {
		t.Errorf("after a sample with p95 only: %s, want p95_ms", got)
	}
	v := &Verdict{Against: AgainstReference}
	v.Metric = "ops_per_s"
	w.Apply(events("reproduce", v)[0])
	if got := w.Metric(); got != "ops_per_s" {
		t.Errorf("after a verdict on ops_per_s: %s", got)
	}
}

// `perfbisect probe --json` read as events: its seconds belong to no step.
func TestWalkOfProbeOutput(t *testing.T) {
	w := Fold(events("", &probe.Sample{Sec: 1}, &probe.Sample{Sec: 2}, &probe.Summary{Ops: 2}))
	if len(w.Loose) != 2 || w.Summary == nil || w.Summary.Ops != 2 || len(w.Steps) != 0 {
		t.Errorf("loose %d, summary %+v, steps %d; want 2 seconds and the summary, no step", len(w.Loose), w.Summary, len(w.Steps))
	}
}

// A decided step that starts again (a log of a step run twice) has no
// decision until its new end: the walk forgets the old one, and neither
// Next nor the screen reads a decision that is gone.
func TestWalkStepStartsAgain(t *testing.T) {
	start := &SessionStart{Steps: []PlannedStep{{ID: "reproduce", Reproduce: true}, {ID: "tmpfs"}}}
	w := Fold(events("reproduce", start, &StepStart{}, &StepEnd{State: StateMeasured}, &Decision{Next: "tmpfs"}, &StepStart{}))
	if s, _ := w.Step("reproduce"); s.Decision != nil || s.State != StateRunning {
		t.Errorf("restarted step: decision %v, state %s; want none, running", s.Decision, s.State)
	}
	if w.Decided() != nil {
		t.Errorf("decided %v, want none", w.Decided())
	}
	if next, ok := w.Next(); !ok || next != "reproduce" {
		t.Errorf("next %q %v, want the first step again", next, ok)
	}
}

// The metric the reproduce step regressed on most clearly, from its end,
// is the walk's; a log written before its end said so judged the later
// steps on the first verdict's metric, and still reads that way.
func TestWalkJudgedOn(t *testing.T) {
	start := &SessionStart{Metric: "p50_ms", Steps: []PlannedStep{{ID: "reproduce", Reproduce: true}, {ID: "tmpfs"}}}
	p99, p50 := &Verdict{Against: AgainstReference}, &Verdict{Against: AgainstReference}
	p99.Metric, p50.Metric = "p99_ms", "p50_ms"
	old := Fold(events("reproduce", start, &StepStart{Reproduce: true}, p50, p99, &StepEnd{State: StateRegressed}))
	if got := old.Metric(); got != "p50_ms" {
		t.Errorf("an old log: %s, want the first verdict's p50_ms", got)
	}
	w := Fold(events("reproduce", start, &StepStart{Reproduce: true}, p99, p50, &StepEnd{State: StateRegressed, JudgedOn: "p99_ms"}))
	if got := w.Metric(); got != "p99_ms" || w.Reproduce().JudgedOn != "p99_ms" {
		t.Errorf("judged on %s (step %q), want p99_ms", got, w.Reproduce().JudgedOn)
	}
	// Run again, the reproduce step has not yet said.
	w.Apply(events("reproduce", &StepStart{Reproduce: true})[0])
	if w.Reproduce().JudgedOn != "" {
		t.Errorf("after a new start: judged on %q", w.Reproduce().JudgedOn)
	}
}

// A pgbench line of a log written before samples listed what they measured
// has zeros for the percentiles pgbench never gives: the walk reads them
// as not measured, since it knows the workload.
func TestWalkReadsAnOldToolLog(t *testing.T) {
	start := &SessionStart{Metric: "p50_ms", Workload: probe.DefaultFor(probe.WorkloadPgbench), Steps: []PlannedStep{{ID: "reproduce", Reproduce: true}}}
	w := Fold(events("reproduce", start, &StepStart{Reproduce: true}, &probe.Sample{Sec: 1, OpsPerS: 800, AvgMs: 1.2}))
	if got := w.Measures(); got != probe.FieldOps|probe.FieldAvg|probe.FieldErrors {
		t.Errorf("measures %s, want pgbench's", got)
	}
	if _, ok := w.Reproduce().Samples[0].Value(probe.FieldP50); ok {
		t.Error("the old line's p50 of 0 read as measured")
	}
	if got := w.Metric(); got != "avg_ms" {
		t.Errorf("metric %s, want avg_ms", got)
	}
}
