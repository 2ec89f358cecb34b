package session

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/host"
	"github.com/perfbisect/perfbisect/probe/knob"
	"github.com/perfbisect/perfbisect/session/playbook"
	"github.com/perfbisect/perfbisect/session/verdict"
)

// Options configure a walk.
type Options struct {
	Playbook *playbook.Playbook
	Host     host.Host
	// Workload is the playbook's workload with the operator's flags applied.
	Workload probe.Spec
	// Duration overrides every step's duration when set.
	Duration time.Duration
	// MaxDuration bounds how far an inconclusive step is extended; zero
	// means three times the step's duration.
	MaxDuration time.Duration
	// Reference holds the samples of the known-good run, if there is one.
	Reference     []probe.Sample
	ReferenceFile string
	// Confirm is asked before a step changes the host, with every change it
	// will make; nil approves (--yes).
	Confirm func(ctx context.Context, step *playbook.Step, changes []knob.Change) (bool, error)
	// Operator answers manual knobs; nil when there is nobody to ask.
	Operator knob.Operator
	// DryRun describes every change and applies none, runs no workload.
	DryRun  bool
	Version string
	// Emit receives every event, in order, from the goroutine that calls
	// the Runner's methods. It must not block for long.
	Emit func(Event)
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// minJudged is the fewest seconds after the warm-up a verdict needs
// (verdict.Options.MinSamples by default).
const minJudged = 5

// Runner walks a playbook on a host, one step at a time, and says every
// thing it does as an Event. The headless walk calls Walk; an interactive
// front end calls Start, Step and End itself.
type Runner struct {
	opt     Options
	extra   atomic.Int64   // nanoseconds the operator added to the running step
	repro   []probe.Sample // samples of the reproduce step: the regression
	results []StepResult
}

// StepResult is what a step came to.
type StepResult struct {
	Step     *playbook.Step
	State    State
	Reason   string
	Verdicts []Verdict
	Decision Decision
	Summary  *probe.Summary
}

// Validate checks the options before anything is recorded: a playbook and a
// host, and steps long enough to judge after the warm-up.
func (opt Options) Validate() error {
	if opt.Playbook == nil || len(opt.Playbook.Steps) == 0 {
		return errors.New("no playbook to walk")
	}
	if opt.Host == nil {
		return errors.New("no host to walk on")
	}
	for i := range opt.Playbook.Steps {
		step := &opt.Playbook.Steps[i]
		d := (&Runner{opt: opt}).duration(step)
		if left := d - opt.Playbook.Warmup.Std(); left < minJudged*time.Second {
			return fmt.Errorf("step %s runs %v with a warm-up of %v: that leaves fewer than %d seconds to judge (use a --duration of at least %v)",
				step.ID, d, opt.Playbook.Warmup, minJudged, opt.Playbook.Warmup.Std()+minJudged*time.Second)
		}
	}
	return nil
}

// NewRunner checks the options (Validate).
func NewRunner(opt Options) (*Runner, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if opt.Emit == nil {
		opt.Emit = func(Event) {}
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	return &Runner{opt: opt}, nil
}

// Extend lengthens the running step by d (the `x` key). It is safe to call
// from any goroutine; it applies to the step under way.
func (r *Runner) Extend(d time.Duration) { r.extra.Add(int64(d)) }

// Results lists the steps run so far, in order.
func (r *Runner) Results() []StepResult { return r.results }

func (r *Runner) emit(step string, data any) {
	r.opt.Emit(NewEvent(r.opt.Now(), step, data))
}

// Start records the session and the host.
func (r *Runner) Start(ctx context.Context) {
	pb := r.opt.Playbook
	r.emit("", &SessionStart{
		Version: r.opt.Version, Playbook: pb.Name, Source: pb.Source, YAML: string(pb.YAML),
		Workload: r.opt.Workload, Reference: r.opt.ReferenceFile, ReferenceSamples: r.opt.Reference,
		Host: r.opt.Host.Name(), DryRun: r.opt.DryRun,
	})
	facts, err := r.opt.Host.Facts(ctx, r.opt.Workload.Dir)
	if err != nil {
		r.emit("", &ErrorEvent{Message: fmt.Sprintf("host facts: %v", err), Action: "going on without them"})
		return
	}
	r.emit("", &facts)
}

// Walk runs the whole playbook from its first step, following each
// decision, until a conclusion, and returns it. A cancelled ctx stops the
// running step (its knobs are put back) and ends the session interrupted.
func (r *Runner) Walk(ctx context.Context) (string, error) {
	r.Start(ctx)
	if r.opt.DryRun {
		return r.dryRun(ctx)
	}
	step := &r.opt.Playbook.Steps[0]
	for {
		res := r.Step(ctx, step)
		if ctx.Err() != nil {
			r.End(EndInterrupted, "", "interrupted during step "+step.ID)
			return "", ctx.Err()
		}
		d := res.Decision
		if d.Conclusion != "" {
			r.End(EndConcluded, d.Conclusion, "")
			return d.Conclusion, nil
		}
		next, ok := r.opt.Playbook.Step(d.Next)
		if !ok { // the playbook was validated: this cannot happen
			err := fmt.Errorf("step %s leads to unknown step %q", step.ID, d.Next)
			r.End(EndFailed, "", err.Error())
			return "", err
		}
		step = next
	}
}

// End closes the session.
func (r *Runner) End(how Ending, conclusion, why string) {
	r.emit("", &SessionEnd{Ended: how, Conclusion: conclusion, Error: why})
}

// Note records the operator's words.
func (r *Runner) Note(step, text string) { r.emit(step, &Note{Text: text}) }

// Skip records that the operator skipped a step, and where the playbook goes.
func (r *Runner) Skip(step *playbook.Step, why string) StepResult {
	r.emit(step.ID, r.stepStart(step))
	return r.finish(step, StepResult{Step: step, State: StateSkipped, Reason: why}, "unavailable", 0)
}

func (r *Runner) stepStart(step *playbook.Step) *StepStart {
	uses := make([]knob.Use, len(step.Knobs))
	for i, k := range step.Knobs {
		uses[i] = knob.Use{Knob: k.Knob, With: k.With}
	}
	return &StepStart{Title: step.Title, Hypothesis: step.Hypothesis, Reproduce: step.Reproduce,
		Knobs: uses, DurationS: r.duration(step).Seconds()}
}

func (r *Runner) duration(step *playbook.Step) time.Duration {
	switch {
	case r.opt.Duration > 0:
		return r.opt.Duration
	case step.Duration > 0:
		return step.Duration.Std()
	}
	return r.opt.Playbook.Duration.Std()
}

func (r *Runner) maxDuration(step *playbook.Step) time.Duration {
	d := r.duration(step)
	if r.opt.MaxDuration > d {
		return r.opt.MaxDuration
	}
	if r.opt.MaxDuration > 0 {
		return d
	}
	return 3 * d
}

// finish records the end of a step and the playbook's decision on it.
func (r *Runner) finish(step *playbook.Step, res StepResult, outcome string, took time.Duration) StepResult {
	r.emit(step.ID, &StepEnd{State: res.State, Reason: res.Reason, Summary: res.Summary, DurationS: took.Seconds()})
	t := step.Target(outcome)
	meaning := step.Meaning[outcome]
	switch res.State {
	case StateMeasured, StateInconclusive, StateUnavailable, StateSkipped, StateFailed, StateInterrupted:
		// The playbook's words are for an outcome the step did not have:
		// say what really happened.
		meaning = res.Reason
	}
	res.Decision = Decision{State: res.State, Meaning: meaning, Next: t.Next, Conclusion: t.Conclude}
	r.emit(step.ID, &res.Decision)
	r.results = append(r.results, res)
	return res
}

func (r *Runner) verdictOptions() verdict.Options {
	pb := r.opt.Playbook
	return verdict.Options{Metric: pb.Metric, Threshold: pb.Threshold}
}

// NewEvent is an event of step at time at carrying data, one of the
// payload types of the event table (*SessionStart, *probe.Sample, …), its
// Type set from data. An unknown payload panics: it is a programming error.
func NewEvent(at time.Time, step string, data any) Event {
	return Event{Type: typeOf(data), Time: at, Step: step, Data: data}
}

func typeOf(data any) Type {
	switch data.(type) {
	case *SessionStart:
		return TypeSession
	case *HostFacts:
		return TypeHost
	case *StepStart:
		return TypeStepStart
	case *StepEnd:
		return TypeStepEnd
	case *KnobEvent:
		return TypeKnob
	case *probe.Sample:
		return TypeSample
	case *Verdict:
		return TypeVerdict
	case *Decision:
		return TypeDecision
	case *Note:
		return TypeNote
	case *ErrorEvent:
		return TypeError
	case *SessionEnd:
		return TypeSessionEnd
	}
	panic(fmt.Sprintf("session: no event type for %T", data))
}
