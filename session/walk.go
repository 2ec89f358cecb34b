package session

import (
	"time"

	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/knob"
	"github.com/perfbisect/perfbisect/session/playbook"
	"github.com/perfbisect/perfbisect/session/verdict"
)

// Walk is an investigation as its events tell it: the one fold of the
// event stream. The runner keeps one as it goes, which the headless printer
// reads; the screen, the replay and the report fold the same events into
// theirs, so none of them works the walk out again and what they show
// cannot differ. Apply is cheap: nothing is sorted or rebuilt.
type Walk struct {
	Start *SessionStart
	Host  *HostFacts
	// Steps are the playbook's, in its order, from the session's start; a
	// step the start did not list is added when an event names it.
	Steps []*StepState
	// Loose are samples outside any step, and Summary the summary line:
	// `perfbisect probe --json` output read as events.
	Loose   []probe.Sample
	Summary *probe.Summary
	Notes   []NoteAt
	Errors  []ErrorAt
	End     *SessionEnd
	// Began and Last are the times of the first and the last event.
	Began, Last time.Time

	index   map[string]int
	current int // the step under way, or -1
	decided int // the step decided last, or -1
	// have is what every sample of the steps so far measured, if there was
	// one (sampled): what the workload measures.
	have     probe.Fields
	sampled  bool
	expected probe.Fields // what the workload will measure, before it has
}

// StepState is one step as far as the walk has got.
type StepState struct {
	PlannedStep
	State  State
	Reason string
	// Changes are the step's knob events, in order: planned, applied,
	// reverted, revert_failed, unavailable.
	Changes  []KnobAt
	Verdicts []Verdict
	Decision *Decision
	Samples  []probe.Sample
	// PlannedS is how long the step is to run: its start's, moved on by
	// the operator's extensions, ExtendedS seconds in all.
	PlannedS, ExtendedS float64
	// DurationS is how long it took, from its end.
	DurationS float64
	// JudgedOn is the end's: the metric a regressed reproduce step hands
	// the later steps.
	JudgedOn string
	Summary  *probe.Summary
	Started  time.Time
	// Elsewhere says where its samples came from when it was measured on
	// another machine.
	Elsewhere *Elsewhere
}

// KnobAt is a knob event and when it happened.
type KnobAt struct {
	Time time.Time
	KnobEvent
}

// NoteAt is an operator's note and where it was made.
type NoteAt struct {
	Time time.Time
	Step string
	Text string
}

// ErrorAt is an error event and where it happened.
type ErrorAt struct {
	Time time.Time
	Step string
	ErrorEvent
}

// NewWalk is the state before the first event.
func NewWalk() *Walk { return &Walk{index: map[string]int{}, current: -1, decided: -1} }

// Fold is the walk a whole stream of events tells.
func Fold(events []Event) *Walk {
	w := NewWalk()
	for _, e := range events {
		w.Apply(e)
	}
	return w
}

// Apply takes one event into the walk.
func (w *Walk) Apply(e Event) {
	if !e.Time.IsZero() {
		if w.Began.IsZero() {
			w.Began = e.Time
		}
		w.Last = e.Time
	}
	s := w.step(e.Step)
	switch d := e.Data.(type) {
	case *SessionStart:
		w.start(d)
	case *HostFacts:
		w.Host = d
	case *probe.Summary:
		w.Summary = d
	case *Note:
		w.Notes = append(w.Notes, NoteAt{Time: e.Time, Step: e.Step, Text: d.Text})
	case *ErrorEvent:
		w.Errors = append(w.Errors, ErrorAt{Time: e.Time, Step: e.Step, ErrorEvent: *d})
	case *SessionEnd:
		w.End = d
		w.current = -1
	case *probe.Sample:
		x := d.Assumed(w.expected) // a 0 of an older log's pgbench is not a p50
		w.measure(x)
		if s == nil {
			w.Loose = append(w.Loose, x)
			break
		}
		s.Samples = append(s.Samples, x)
	}
	if s != nil {
		w.applyToStep(s, e)
	}
}

func (w *Walk) applyToStep(s *StepState, e Event) {
	switch d := e.Data.(type) {
	case *StepStart:
		// A step that starts again starts afresh, its old decision too.
		if w.decided == w.index[s.ID] {
			w.decided = -1
		}
		*s = StepState{PlannedStep: PlannedStep{ID: s.ID, Title: d.Title, Hypothesis: d.Hypothesis,
			Reproduce: d.Reproduce, Knobs: d.Knobs}, State: StateRunning, PlannedS: d.DurationS, Started: e.Time,
			Samples: make([]probe.Sample, 0, int(d.DurationS)+8)} // a second costs no allocation
		w.current = w.index[s.ID]
	case *KnobEvent:
		s.Changes = append(s.Changes, KnobAt{Time: e.Time, KnobEvent: *d})
	case *Verdict:
		s.Verdicts = append(s.Verdicts, *d)
	case *Elsewhere:
		s.Elsewhere = d
	case *Extend:
		s.PlannedS = d.PlannedS
		s.ExtendedS += d.BySeconds
	case *StepEnd:
		s.State, s.Reason, s.Summary, s.DurationS, s.JudgedOn = d.State, d.Reason, d.Summary, d.DurationS, d.JudgedOn
		if w.current == w.index[s.ID] {
			w.current = -1
		}
	case *Decision:
		s.Decision = d
		w.decided = w.index[s.ID]
	}
}

func (w *Walk) start(d *SessionStart) {
	// The event is the caller's (and, live, another walk's): upgrade a copy.
	c := *d
	upgrade(&c)
	w.Start = &c
	w.expected = c.Workload.Expected() // once: a command's pattern is compiled for it
	for _, p := range c.Steps {
		w.step(p.ID).PlannedStep = p
	}
}

// upgrade fills in what a log written before the session event carried
// its steps and judgement says only in its playbook's YAML.
func upgrade(d *SessionStart) {
	if len(d.Steps) > 0 {
		return
	}
	d.Metric, d.Threshold, d.WarmupS = playbook.DefaultMetric, playbook.DefaultThreshold, playbook.DefaultWarmup.Std().Seconds()
	if d.YAML == "" {
		return
	}
	// Its knobs were checked when it ran.
	pb, err := playbook.Parse(d.Source, []byte(d.YAML), func(string, knob.Settings) error { return nil })
	if err != nil {
		return
	}
	d.Metric, d.Threshold, d.WarmupS, d.Steps = pb.Metric, pb.Threshold, pb.Warmup.Std().Seconds(), PlannedSteps(pb)
}

// PlannedSteps are a playbook's steps as a session event lists them.
func PlannedSteps(pb *playbook.Playbook) []PlannedStep {
	out := make([]PlannedStep, len(pb.Steps))
	for i, s := range pb.Steps {
		out[i] = PlannedStep{ID: s.ID, Title: s.Title, Hypothesis: s.Hypothesis, Reproduce: s.Reproduce, Knobs: s.Knobs}
	}
	return out
}

// step is the step called id, added when new; nil for "" (no step).
func (w *Walk) step(id string) *StepState {
	if id == "" {
		return nil
	}
	if i, ok := w.index[id]; ok {
		return w.Steps[i]
	}
	w.index[id] = len(w.Steps)
	s := &StepState{PlannedStep: PlannedStep{ID: id}, State: StatePending}
	w.Steps = append(w.Steps, s)
	return s
}

// Step is the step called id.
func (w *Walk) Step(id string) (*StepState, bool) {
	i, ok := w.index[id]
	if !ok {
		return nil, false
	}
	return w.Steps[i], true
}

// Index is the place of step id in Steps, or -1.
func (w *Walk) Index(id string) int {
	if i, ok := w.index[id]; ok {
		return i
	}
	return -1
}

// Current is the step under way, or nil.
func (w *Walk) Current() *StepState {
	if w.current < 0 {
		return nil
	}
	return w.Steps[w.current]
}

// Reproduce is the step that reproduces the regression, or nil.
func (w *Walk) Reproduce() *StepState {
	for _, s := range w.Steps {
		if s.Reproduce {
			return s
		}
	}
	return nil
}

// Decided is the step decided last, or nil.
func (w *Walk) Decided() *StepState {
	if w.decided < 0 {
		return nil
	}
	return w.Steps[w.decided]
}

// Next is the step the walk goes to next: where the step decided last
// leads (the operator may run steps out of order), or the first step
// before any was decided; false once a conclusion is reached.
func (w *Walk) Next() (string, bool) {
	last := w.Decided()
	if last == nil {
		if len(w.Steps) == 0 {
			return "", false
		}
		return w.Steps[0].ID, true
	}
	d := last.Decision
	if d.Conclusion != "" || d.Next == "" {
		return "", false
	}
	return d.Next, true
}

// Conclusion is the walk's conclusion, if it reached one: the session's
// end's, else the first decision that concluded.
func (w *Walk) Conclusion() string {
	if w.End != nil && w.End.Conclusion != "" {
		return w.End.Conclusion
	}
	for _, s := range w.Steps {
		if s.Decision != nil && s.Decision.Conclusion != "" {
			return s.Decision.Conclusion
		}
	}
	return ""
}

// Reference is the known-good run's seconds, if the session had one.
func (w *Walk) Reference() []probe.Sample {
	if w.Start == nil {
		return nil
	}
	return w.Start.ReferenceSamples
}

// Regressed reports whether the reproduce step was slower than the reference.
func (w *Walk) Regressed() bool {
	r := w.Reproduce()
	return r != nil && r.State == StateRegressed
}

// RevertFailed reports whether a knob could not be put back.
func (w *Walk) RevertFailed() bool {
	for _, s := range w.Steps {
		for _, c := range s.Changes {
			if c.Action == KnobRevertFailed {
				return true
			}
		}
	}
	return false
}

// Warmup is how long each step ran before its seconds counted.
func (w *Walk) Warmup() time.Duration {
	if w.Start == nil {
		return playbook.DefaultWarmup.Std()
	}
	return time.Duration(w.Start.WarmupS * float64(time.Second))
}

// Metric is what the steps are judged on: the metric the reproduce step
// regressed on most clearly, else what the verdicts say they were (the
// reproduce step's first is that one), else the playbook's metric, or the nearest one the workload measures
// (verdict.Pick) — by its seconds so far, or before any by what the
// workload will give.
func (w *Walk) Metric() string {
	if r := w.Reproduce(); r != nil && r.JudgedOn != "" {
		return r.JudgedOn
	}
	for _, s := range w.Steps {
		if len(s.Verdicts) > 0 {
			return s.Verdicts[0].Metric
		}
	}
	if w.Start == nil {
		return playbook.DefaultMetric
	}
	have := w.Measures()
	if have == 0 {
		return w.Start.Metric
	}
	m, _ := verdict.Pick(w.Start.Metric, have)
	return m
}

// Measures is what the workload's seconds measure: every one of the steps'
// so far, or before any what the workload will give (0: not known).
func (w *Walk) Measures() probe.Fields {
	if w.sampled {
		return w.have
	}
	return w.expected
}

func (w *Walk) measure(x probe.Sample) {
	if !w.sampled {
		w.have, w.sampled = x.Measured(), true
		return
	}
	w.have &= x.Measured()
}
