package tui

import (
	"time"

	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/knob"
	"github.com/perfbisect/perfbisect/session"
	"github.com/perfbisect/perfbisect/session/playbook"
	"github.com/perfbisect/perfbisect/session/verdict"
	"github.com/perfbisect/perfbisect/tui/chart"
)

// ringSize bounds what the charts keep of a step: the longest window.
const ringSize = 600

// stepView is what the screen knows of one playbook step.
type stepView struct {
	step     *playbook.Step
	state    session.State
	reason   string
	verdicts []session.Verdict
	decision *session.Decision
	seconds  int
	planned  float64 // seconds, from its start event
}

// walkState is the investigation as the screen shows it, built only from
// session events, so that the live walk and a replay draw the same thing.
// apply is cheap: no sorting, no history rebuilt, rings of fixed size.
type walkState struct {
	start     *session.SessionStart
	host      *session.HostFacts
	pb        *playbook.Playbook
	steps     []stepView
	index     map[string]int
	current   int // the step under way, or -1
	decided   int // the step that was decided last, or -1: its decision says where to go
	last      probe.Sample
	ring      *chart.Ring // the running (or last run) step
	reference *chart.Ring
	refHas    probe.Fields // the fields every reference sample measured
	expected  probe.Fields // what the session's workload will measure (0: not known)
	repro     *chart.Ring  // the reproduce step: the regression
	reproID   string
	activity  []string // knob changes, notes and errors, newest last
	reverts   []string // every knob put back, or not, in order: for the terminal afterwards
	revertBad bool     // a revert failed
	end       *session.SessionEnd
	began     time.Time
	lastTime  time.Time
}

func newWalkState(pb *playbook.Playbook) *walkState {
	s := &walkState{current: -1, decided: -1, ring: chart.NewRing(ringSize), reference: chart.NewRing(ringSize), repro: chart.NewRing(ringSize), index: map[string]int{}}
	if pb != nil {
		s.setPlaybook(pb)
	}
	return s
}

func (s *walkState) setPlaybook(pb *playbook.Playbook) {
	s.pb = pb
	s.steps = s.steps[:0]
	for i := range pb.Steps {
		st := &pb.Steps[i]
		s.index[st.ID] = i
		s.steps = append(s.steps, stepView{step: st, state: session.StatePending})
		if st.Reproduce {
			s.reproID = st.ID
		}
	}
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
	if s.began.IsZero() {
		s.began = e.Time
	}
	s.lastTime = e.Time
	i, known := s.index[e.Step]
	switch d := e.Data.(type) {
	case *session.SessionStart:
		s.start = d
		if s.pb == nil && d.YAML != "" {
			// The log carries its playbook; its knobs were checked when it ran.
			if pb, err := playbook.Parse(d.Source, []byte(d.YAML), func(string, knob.Settings) error { return nil }); err == nil {
				s.setPlaybook(pb)
			}
		}
		s.reference.Reset()
		s.refHas = verdict.Measured(d.ReferenceSamples)
		s.expected = d.Workload.Expected()
		for _, x := range d.ReferenceSamples {
			s.reference.Push(x)
		}
	case *session.HostFacts:
		s.host = d
	case *session.StepStart:
		if known {
			s.current = i
			s.steps[i].state = session.StateRunning
			s.steps[i].seconds = 0
			s.steps[i].planned = d.DurationS
			s.ring.Reset()
			if e.Step == s.reproID {
				s.repro.Reset()
			}
		}
	case *probe.Sample:
		s.last = *d
		s.ring.Push(*d)
		if e.Step == s.reproID {
			s.repro.Push(*d)
		}
		if known {
			s.steps[i].seconds = d.Sec
		}
	case *session.KnobEvent:
		line := knobLine(e.Step, d)
		s.note(line)
		switch d.Action {
		case session.KnobRevertFailed:
			s.revertBad = true
			fallthrough
		case session.KnobReverted:
			s.reverts = append(s.reverts, line)
		}
	case *session.Verdict:
		if known {
			s.steps[i].verdicts = append(s.steps[i].verdicts, *d)
		}
	case *session.StepEnd:
		if known {
			s.steps[i].state, s.steps[i].reason = d.State, d.Reason
		}
		if s.current == i {
			s.current = -1
		}
	case *session.Decision:
		if known {
			s.steps[i].decision = d
			s.decided = i
		}
	case *session.Note:
		s.note("note: " + d.Text)
	case *session.ErrorEvent:
		s.note("error: " + d.Message)
	case *session.SessionEnd:
		s.end = d
		s.current = -1
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

func suffix(p, s string) string {
	if s == "" {
		return ""
	}
	return p + s
}

// nextPending is the step the walk goes to next: the decision of the step
// decided last (the operator may have run steps out of order), or the
// first step when none was.
func (s *walkState) nextPending() (string, bool) {
	if s.decided < 0 {
		if len(s.steps) == 0 {
			return "", false
		}
		return s.steps[0].step.ID, true
	}
	d := s.steps[s.decided].decision
	if d.Conclusion != "" || d.Next == "" {
		return "", false
	}
	return d.Next, true
}

// conclusion is the walk's conclusion, if it reached one.
func (s *walkState) conclusion() string {
	if s.end != nil && s.end.Conclusion != "" {
		return s.end.Conclusion
	}
	for _, st := range s.steps {
		if st.decision != nil && st.decision.Conclusion != "" {
			return st.decision.Conclusion
		}
	}
	return ""
}

// measures is what the workload's samples measure: the last sample's
// fields, or before any sample what the session's workload will give.
func (s *walkState) measures() probe.Fields {
	if s.last.Sec == 0 && s.expected != 0 {
		return s.expected
	}
	return s.last.Measured()
}
