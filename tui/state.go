package tui

import (
	"strings"

	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/session"
	"github.com/perfbisect/perfbisect/session/verdict"
	"github.com/perfbisect/perfbisect/tui/chart"
)

// ringSize bounds what the charts keep of a step: the longest window.
const ringSize = 600

// walkState is the investigation as the screen shows it: the session's
// fold of the events (the walk: steps, verdicts, decisions, conclusion),
// and what only the screen keeps of them — the charts' rings of fixed size
// and the activity lines. The live walk and a replay apply the same
// events, so they draw the same thing; apply sorts nothing and rebuilds no
// history.
type walkState struct {
	*session.Walk
	ring      *chart.Ring // the running (or last run) step
	reference *chart.Ring
	refHas    probe.Fields // the fields every reference sample measured
	repro     *chart.Ring  // the reproduce step: the regression
	activity  []string     // knob changes, notes and errors, newest last
	reverts   []string     // every knob put back, or not, in order: for the terminal afterwards
}

func newWalkState() *walkState {
	return &walkState{Walk: session.NewWalk(), ring: chart.NewRing(ringSize), reference: chart.NewRing(ringSize), repro: chart.NewRing(ringSize)}
}

const maxActivity = 200

func (s *walkState) note(line string) {
	if len(s.activity) == maxActivity {
		copy(s.activity, s.activity[1:])
		s.activity = s.activity[:maxActivity-1]
	}
	s.activity = append(s.activity, line)
}

// apply takes one event into the state.
func (s *walkState) apply(e session.Event) {
	s.Walk.Apply(e)
	switch d := e.Data.(type) {
	case *session.SessionStart:
		s.reference.Reset()
		s.refHas = verdict.Measured(d.ReferenceSamples)
		for _, x := range d.ReferenceSamples {
			s.reference.Push(x)
		}
	case *session.StepStart:
		s.ring.Reset()
		if d.Reproduce {
			s.repro.Reset()
		}
	case *probe.Sample:
		s.ring.Push(*d)
		if st, ok := s.Step(e.Step); ok && st.Reproduce {
			s.repro.Push(*d)
		}
	case *session.KnobEvent:
		line := knobLine(e.Step, d)
		s.note(line)
		switch d.Action {
		case session.KnobRevertFailed, session.KnobReverted:
			s.reverts = append(s.reverts, line)
		}
	case *session.Elsewhere:
		s.note(e.Step + ": " + elsewhereLine(d))
	case *session.Note:
		s.note("note: " + d.Text)
	case *session.ErrorEvent:
		s.note("error: " + d.Message)
	}
}

func knobLine(step string, k *session.KnobEvent) string {
	switch k.Action {
	case session.KnobApplied:
		return step + ": applied " + k.Change.Knob + suffix(": now ", k.Change.After)
	case session.KnobReverted:
		return step + ": put back " + k.Change.Knob
	case session.KnobRevertFailed:
		return step + ": REVERT FAILED " + k.Change.Knob + ": " + k.Error
	case session.KnobUnavailable:
		return step + ": " + k.Change.Knob + " unavailable: " + k.Error
	}
	return step + ": " + string(k.Action) + " " + k.Change.Knob
}

// notPutBackLine says which knobs a log left applied, and what puts them back.
func notPutBackLine(left []session.Unreverted) string {
	var what []string
	for _, u := range left {
		what = append(what, u.Step+": "+u.What())
	}
	return "NOT PUT BACK: " + strings.Join(what, "; ") + " — " + session.RecoverHint
}

func suffix(p, s string) string {
	if s == "" {
		return ""
	}
	return p + s
}

// seconds is how far a step has got: its last second.
func seconds(st *session.StepState) int {
	if n := len(st.Samples); n > 0 {
		return st.Samples[n-1].Sec
	}
	return 0
}
