// Package playbook owns the plan of an investigation: the workload every step
// runs, the steps themselves (each a hypothesis, the knobs that test it, and
// where to go when the regression persists or is gone), and the checks that
// make a user's playbook safe to walk — every step reachable from the first,
// no cycles, every target a real step or a conclusion. It reads YAML and
// places every problem at a line and column, like a compiler. It runs
// nothing: the session's runner walks a Playbook, and knobs are only named
// and checked here.
package playbook

import (
	"strings"
	"time"

	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/knob"
	"github.com/perfbisect/perfbisect/session/verdict"
)

// Outcome is what a step came to, as a playbook branches on it: the
// runner's state of the step selects one (session.State.Outcome).
type Outcome string

// Outcomes of a step, as the runner judges them against the reproduced
// regression and the reference.
const (
	// Persists: the step is as slow as the reproduced regression.
	Persists Outcome = "persists"
	// Gone: the step is back to the reference, the regression went away.
	Gone Outcome = "gone"
	// Unavailable: the step could not run here (a knob that does not exist
	// on this host) or the operator skipped it.
	Unavailable Outcome = "unavailable"
)

// Outcomes are the outcomes a step branches on, in the order a playbook
// writes them.
var Outcomes = []Outcome{Persists, Gone, Unavailable}

// Defaults of the fields a playbook may leave out.
const (
	DefaultDuration  = probe.Duration(20 * time.Second)
	DefaultWarmup    = probe.Duration(2 * time.Second)
	DefaultThreshold = verdict.DefaultThreshold
	DefaultMetric    = verdict.DefaultMetric
)

// Playbook is a parsed and checked playbook, with every default filled in.
type Playbook struct {
	Name        string
	Description string
	// Workload is what every step runs; its Duration is the playbook's.
	Workload probe.Spec
	// Duration is how long a step runs unless it says otherwise.
	Duration probe.Duration
	// Threshold is the relative change below which a step is "same", even
	// when the difference is significant: 0.1 for 10%.
	Threshold float64
	// Metric is the sample field the verdicts compare (one of verdict.Metrics).
	Metric string
	// Warmup is how long each step runs before its samples count.
	Warmup probe.Duration
	// Steps are in file order; the first reproduces the regression and the
	// walk starts there.
	Steps []Step
	// Source is where the playbook came from: a file name, or "embedded:NAME".
	Source string
	// YAML is the text as written, for the session log.
	YAML []byte
}

// Step is one hypothesis tested by one change to the host.
type Step struct {
	ID         string
	Title      string
	Hypothesis string
	// Reproduce marks the first step, which runs the setup as it is to
	// reproduce the regression; the other steps are judged against it.
	Reproduce bool
	// Duration is how long the step runs (the playbook's unless set).
	Duration probe.Duration
	// Knobs are applied in order before the step runs and reverted after.
	Knobs []knob.Use
	// Persists, Gone and Unavailable say where the walk goes on each
	// outcome. Unavailable is the Persists target unless the playbook says
	// otherwise: a step that cannot run rules nothing out.
	Persists    Target
	Gone        Target
	Unavailable Target
	// Meaning says, per outcome, what the result means, for the operator.
	// It may be nil.
	Meaning map[Outcome]string
}

// Target is where an outcome leads: the next step, or a conclusion that
// ends the walk. Exactly one of the two is set.
type Target struct {
	Next     string `json:"next,omitempty"`
	Conclude string `json:"conclude,omitempty"`
}

// Step returns the step called id.
func (p *Playbook) Step(id string) (*Step, bool) {
	for i := range p.Steps {
		if p.Steps[i].ID == id {
			return &p.Steps[i], true
		}
	}
	return nil, false
}

// ChangesHost says whether any step turns a knob, so that walking the
// playbook changes the host and needs the operator's yes first.
func (p *Playbook) ChangesHost() bool {
	for _, s := range p.Steps {
		if len(s.Knobs) > 0 {
			return true
		}
	}
	return false
}

// Summary is the description's first sentence on one line, for a list of
// playbooks.
func (p *Playbook) Summary() string {
	s := strings.Join(strings.Fields(p.Description), " ")
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}

// Target says where the walk goes after outcome (Persists, Gone or
// Unavailable). An unknown outcome has no target (the zero Target).
func (s Step) Target(outcome Outcome) Target {
	switch outcome {
	case Persists:
		return s.Persists
	case Gone:
		return s.Gone
	case Unavailable:
		if s.Unavailable == (Target{}) {
			return s.Persists
		}
		return s.Unavailable
	}
	return Target{}
}

// String is "-> ID" for a next step and "conclude: SENTENCE" for a conclusion.
func (t Target) String() string {
	switch {
	case t.Next != "":
		return "-> " + t.Next
	case t.Conclude != "":
		return "conclude: " + t.Conclude
	}
	return "(nowhere)"
}
