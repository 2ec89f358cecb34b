// Package session owns the investigation: the walk through a playbook's
// steps (Runner), the verdict and decision of each, the event stream, the
// session log it is written to, and the one fold of that stream (Walk)
// that the live view, the replay, the headless printer and the report all
// read.
package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/host"
	"github.com/perfbisect/perfbisect/probe/knob"
	"github.com/perfbisect/perfbisect/session/playbook"
	"github.com/perfbisect/perfbisect/session/verdict"
)

// Type names an event, as written in its "type" field.
type Type string

const (
	TypeSession    Type = "session"
	TypeHost       Type = "host"
	TypeStepStart  Type = "step_start"
	TypeStepEnd    Type = "step_end"
	TypeKnob       Type = "knob"
	TypeSample     Type = "sample"
	TypeVerdict    Type = "verdict"
	TypeDecision   Type = "decision"
	TypeNote       Type = "note"
	TypeError      Type = "error"
	TypeSessionEnd Type = "session_end"
	TypeExtend     Type = "extend"
	// TypeElsewhere says a step was measured on another machine.
	TypeElsewhere Type = "elsewhere"
	// TypeSummary is the last line of `perfbisect probe --json`, so that
	// output can serve as a reference run.
	TypeSummary Type = "summary"
)

// Event is one thing that happened in an investigation. On the wire it is
// one flat JSON object: the header fields (type, time, step) and the fields
// of its payload side by side, so a sample event reads exactly like a line
// of `perfbisect probe --json` with a step and a time added.
type Event struct {
	Type Type
	Time time.Time
	Step string // the step it belongs to, if any
	// Data is a pointer to the payload of Type, as the table payloads
	// pairs them: *SessionStart, *HostFacts, *StepStart, …
	Data any
}

// SessionStart opens a log.
type SessionStart struct {
	Version   string     `json:"version"`
	Playbook  string     `json:"playbook"`
	Source    string     `json:"source"` // a file, or embedded:NAME
	YAML      string     `json:"yaml"`   // the playbook's text, so the log stands alone
	Workload  probe.Spec `json:"workload"`
	Reference string     `json:"reference,omitempty"` // the file of the known-good run
	// ReferenceSamples are that run's seconds, so the log stands alone for
	// replays and reports.
	ReferenceSamples []probe.Sample `json:"reference_samples,omitempty"`
	// ReferenceMismatch says how the reference's workload differs from
	// this walk's, when the operator accepted it (--reference-mismatch-ok).
	ReferenceMismatch []string `json:"reference_mismatch,omitempty"`
	Host              string   `json:"host"`
	DryRun            bool     `json:"dry_run,omitempty"`
	// How the steps are judged, and the steps in playbook order, so that a
	// reader of the log needs nothing but its events. A log written before
	// these fields has only the YAML: see upgrade.
	Metric    string        `json:"metric,omitempty"`
	Threshold float64       `json:"threshold,omitempty"`
	WarmupS   float64       `json:"warmup_s,omitempty"`
	Steps     []PlannedStep `json:"steps,omitempty"`
}

// PlannedStep is a step of the playbook as the session starts: what it
// tests and with which knobs, before it runs.
type PlannedStep struct {
	ID         string     `json:"id"`
	Title      string     `json:"title"`
	Hypothesis string     `json:"hypothesis"`
	Reproduce  bool       `json:"reproduce,omitempty"`
	Knobs      []knob.Use `json:"knobs,omitempty"`
}

// HostFacts are what the host says about itself and the data directory.
type HostFacts = host.Facts

// StepStart says what a step is about to test.
type StepStart struct {
	Title      string     `json:"title"`
	Hypothesis string     `json:"hypothesis"`
	Reproduce  bool       `json:"reproduce,omitempty"`
	Knobs      []knob.Use `json:"knobs,omitempty"`
	DurationS  float64    `json:"duration_s"`
}

// State is where a step ended up.
type State string

const (
	StatePending      State = "pending"
	StateRunning      State = "running"
	StatePersists     State = "persists"     // still as slow as the reproduced regression
	StateGone         State = "gone"         // back to the reference, or better
	StateRegressed    State = "regressed"    // the reproduce step: slower than the reference
	StateSame         State = "same"         // the reproduce step: no different from the reference
	StateMeasured     State = "measured"     // the reproduce step without a reference: it is the baseline
	StateInconclusive State = "inconclusive" // not known even at --max-duration
	StateSkipped      State = "skipped"
	StateUnavailable  State = "unavailable" // a knob cannot work here
	StateFailed       State = "failed"
	StateInterrupted  State = "interrupted" // stopped by Ctrl-C or a quit
	StateDryRun       State = "dry-run"
)

// Outcome is the playbook's branch the state selects: persists while the
// regression is there (for the reproduce step: regressed, or measured as
// the baseline), gone once it went away (for the reproduce step: the same
// as the reference), unavailable when the step could not tell.
func (s State) Outcome() playbook.Outcome {
	switch s {
	case StatePersists, StateRegressed, StateMeasured:
		return playbook.Persists
	case StateGone, StateSame:
		return playbook.Gone
	}
	return playbook.Unavailable
}

// judged reports whether the state is a verdict's, so the playbook's words
// for its outcome apply; otherwise the step's reason says what happened.
func (s State) judged() bool {
	switch s {
	case StatePersists, StateRegressed, StateGone, StateSame:
		return true
	}
	return false
}

// StepEnd closes a step.
type StepEnd struct {
	State     State          `json:"state"`
	Reason    string         `json:"reason,omitempty"`
	Summary   *probe.Summary `json:"summary,omitempty"`
	DurationS float64        `json:"duration_s"`
	// JudgedOn is, on a reproduce step that regressed, the metric it
	// regressed on most clearly, which the later steps are judged on; a
	// log written before it has none, and its steps were judged on the
	// first verdict's metric (see Walk.Metric).
	JudgedOn string `json:"judged_on,omitempty"`
}

// KnobAction is what happened to a knob.
type KnobAction string

const (
	KnobPlanned      KnobAction = "planned"
	KnobApplied      KnobAction = "applied"
	KnobReverted     KnobAction = "reverted"
	KnobRevertFailed KnobAction = "revert_failed"
	KnobUnavailable  KnobAction = "unavailable"
)

// KnobEvent records a change planned, applied or reverted, with what was
// there before.
type KnobEvent struct {
	Action KnobAction  `json:"action"`
	Change knob.Change `json:"change"`
	Error  string      `json:"error,omitempty"`
}

// Against names the baseline of a verdict.
type Against string

const (
	AgainstReference  Against = "reference"
	AgainstRegression Against = "regression"
)

// Verdict is a step judged against a baseline.
type Verdict struct {
	Against Against `json:"against"`
	verdict.Verdict
}

// Decision is what the verdicts mean in the playbook, and where the walk
// goes. The state it follows from is the step's end's.
type Decision struct {
	Meaning    string `json:"meaning,omitempty"`
	Next       string `json:"next,omitempty"`
	Conclusion string `json:"conclusion,omitempty"`
	// Playbook is the playbook's own words for the outcome, from which the
	// runner built Conclusion (see conclude); kept so a reader can tell
	// which branch was taken.
	Playbook string `json:"playbook,omitempty"`
}

// Note is free text from the operator.
type Note struct {
	Text string `json:"text"`
}

// ErrorEvent is something that went wrong and what was done about it.
type ErrorEvent struct {
	Message string `json:"message"`
	Action  string `json:"action,omitempty"`
}

// Extend says the operator lengthened the running step: it now runs
// PlannedS seconds and, while its verdict is not yet known, up to MaxS.
type Extend struct {
	BySeconds float64 `json:"by_s"`
	PlannedS  float64 `json:"planned_s"`
	MaxS      float64 `json:"max_s"`
}

// Ending says how a session ended.
type Ending string

const (
	EndConcluded   Ending = "concluded"
	EndQuit        Ending = "quit"
	EndInterrupted Ending = "interrupted"
	EndFailed      Ending = "failed"
)

// SessionEnd closes a log.
type SessionEnd struct {
	Ended      Ending `json:"ended"`
	Conclusion string `json:"conclusion,omitempty"`
	Error      string `json:"error,omitempty"`
}

type header struct {
	Type Type      `json:"type"`
	Time time.Time `json:"time"`
	Step string    `json:"step,omitempty"`
}

// MarshalJSON writes the header and the payload's fields as one object.
func (e Event) MarshalJSON() ([]byte, error) {
	h, err := json.Marshal(header{e.Type, e.Time, e.Step})
	if err != nil {
		return nil, err
	}
	if e.Data == nil {
		return h, nil
	}
	d, err := json.Marshal(e.Data)
	if err != nil {
		return nil, err
	}
	if len(d) < 2 || d[0] != '{' {
		return nil, fmt.Errorf("event %s: payload %T is not a JSON object", e.Type, e.Data)
	}
	if len(d) == 2 { // {}
		return h, nil
	}
	out := make([]byte, 0, len(h)+len(d))
	out = append(out, h[:len(h)-1]...)
	out = append(out, ',')
	return append(out, d[1:]...), nil
}

// UnmarshalJSON reads the header, then the payload its type names. An
// unknown type keeps its header and no payload, so newer logs still open.
func (e *Event) UnmarshalJSON(b []byte) error {
	var h header
	if err := json.Unmarshal(b, &h); err != nil {
		return err
	}
	if h.Type == "" {
		return fmt.Errorf("no \"type\" field")
	}
	*e = Event{Type: h.Type, Time: h.Time, Step: h.Step, Data: newPayload(h.Type)}
	if e.Data == nil {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(b))
	return d.Decode(e.Data)
}

// payloads pairs each event type with its payload, for encoding (NewEvent)
// and decoding (UnmarshalJSON) alike.
var payloads = []struct {
	typ Type
	new func() any
}{
	{TypeSession, func() any { return &SessionStart{} }},
	{TypeHost, func() any { return &HostFacts{} }},
	{TypeStepStart, func() any { return &StepStart{} }},
	{TypeStepEnd, func() any { return &StepEnd{} }},
	{TypeKnob, func() any { return &KnobEvent{} }},
	{TypeSample, func() any { return &probe.Sample{} }},
	{TypeVerdict, func() any { return &Verdict{} }},
	{TypeDecision, func() any { return &Decision{} }},
	{TypeNote, func() any { return &Note{} }},
	{TypeError, func() any { return &ErrorEvent{} }},
	{TypeSessionEnd, func() any { return &SessionEnd{} }},
	{TypeExtend, func() any { return &Extend{} }},
	{TypeSummary, func() any { return &probe.Summary{} }},
	{TypeElsewhere, func() any { return &Elsewhere{} }},
}

// typeOfPayload is payloads the other way round.
var typeOfPayload = func() map[reflect.Type]Type {
	m := make(map[reflect.Type]Type, len(payloads))
	for _, p := range payloads {
		m[reflect.TypeOf(p.new())] = p.typ
	}
	return m
}()

// newPayload is an empty payload of type t, or nil for a type this
// version does not know.
func newPayload(t Type) any {
	for _, p := range payloads {
		if p.typ == t {
			return p.new()
		}
	}
	return nil
}

// NewEvent is an event of step at time at carrying data, one of the
// payload types of the event table (*SessionStart, *probe.Sample, …), its
// Type set from data. An unknown payload panics: it is a programming error.
func NewEvent(at time.Time, step string, data any) Event {
	t, ok := typeOfPayload[reflect.TypeOf(data)]
	if !ok {
		panic(fmt.Sprintf("session: no event type for %T", data))
	}
	return Event{Type: t, Time: at, Step: step, Data: data}
}
