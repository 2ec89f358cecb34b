package session

import (
	"context"
	"errors"
	"fmt"
	"sync"
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
	// ReferenceMismatch is how the reference's workload differs from the
	// walk's (WorkloadDiff), when the operator accepted it anyway.
	ReferenceMismatch []string
	// Confirm is asked before a step changes the host, with every change it
	// will make; nil approves (--yes).
	Confirm func(ctx context.Context, step *playbook.Step, changes []knob.Change) (bool, error)
	// Operator answers manual knobs; nil when there is nobody to ask. A
	// ManualOperator may also give a step made by hand its samples.
	Operator knob.Operator
	// Results are the measurements of steps made by hand taken on another
	// machine (--result), by step id: those steps change nothing here.
	Results map[string]*Result
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
// thing it does as an Event. The headless walk calls Run; an interactive
// front end calls Start, Step and End itself. Its methods may be called
// from several goroutines (a note while a step runs): each event is folded
// into its Walk and emitted under one lock, so both see one order.
type Runner struct {
	opt   Options
	extra atomic.Int64 // nanoseconds the operator added to the running step

	mu   sync.Mutex
	walk *Walk
	// limits of the step under way, for Extend: its planned length and
	// how far it may run while not yet judged.
	base, limit time.Duration
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
	if err := opt.checkResults(); err != nil {
		return err
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
	return &Runner{opt: opt, walk: NewWalk()}, nil
}

// Extend lengthens the running step by d (the `x` key), and records it so
// that a replay shows the length the screen showed. It applies to the step
// under way; with none, or once it is being stopped, it does nothing.
func (r *Runner) Extend(d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	cur := r.walk.Current()
	if cur == nil || r.base == 0 {
		return
	}
	extra := time.Duration(r.extra.Add(int64(d)))
	r.emitLocked(cur.ID, &Extend{BySeconds: d.Seconds(), PlannedS: (r.base + extra).Seconds(), MaxS: (r.limit + extra).Seconds()})
}

// Walk is the walk so far, as the runner's own events tell it. It is the
// runner's: read it between the runner's calls, not during one.
func (r *Runner) Walk() *Walk { return r.walk }

func (r *Runner) emit(step string, data any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.emitLocked(step, data)
}

func (r *Runner) emitLocked(step string, data any) {
	e := NewEvent(r.opt.Now(), step, data)
	r.walk.Apply(e)
	r.opt.Emit(e)
}

// stepState is a copy of what step id came to, for the caller of Step.
func (r *Runner) stepState(id string) StepState {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, _ := r.walk.Step(id)
	return *s
}

// regression is the reproduce step's seconds, the baseline of the others.
func (r *Runner) regression() []probe.Sample {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s := r.walk.Reproduce(); s != nil {
		return s.Samples
	}
	return nil
}

// Start records the session and the host.
func (r *Runner) Start(ctx context.Context) {
	pb := r.opt.Playbook
	r.emit("", &SessionStart{
		Version: r.opt.Version, Playbook: pb.Name, Source: pb.Source, YAML: string(pb.YAML),
		Workload: r.opt.Workload, Reference: r.opt.ReferenceFile, ReferenceSamples: r.opt.Reference,
		ReferenceMismatch: r.opt.ReferenceMismatch,
		Host:              r.opt.Host.Name(), DryRun: r.opt.DryRun,
		Metric: pb.Metric, Threshold: pb.Threshold, WarmupS: pb.Warmup.Std().Seconds(), Steps: PlannedSteps(pb),
	})
	facts, err := r.opt.Host.Facts(ctx, r.opt.Workload.Dir)
	if err != nil {
		r.emit("", &ErrorEvent{Message: fmt.Sprintf("host facts: %v", err), Action: "going on without them"})
		return
	}
	r.emit("", &facts)
}

// Run walks the whole playbook from its first step, following each
// decision, until a conclusion, and returns it. A cancelled ctx stops the
// running step (its knobs are put back) and ends the session interrupted.
func (r *Runner) Run(ctx context.Context) (string, error) {
	r.Start(ctx)
	if r.opt.DryRun {
		return r.dryRun(ctx)
	}
	step := &r.opt.Playbook.Steps[0]
	for {
		res := r.Step(ctx, step)
		if err := res.RevertFailure(); err != nil {
			// No later step runs on a host in a state nobody knows; and an
			// interrupt does not hide it: the session failed.
			r.End(EndFailed, "", err.Error())
			return "", err
		}
		if ctx.Err() != nil {
			r.End(EndInterrupted, "", "interrupted during step "+step.ID)
			return "", ctx.Err()
		}
		d := res.Decision
		if d == nil { // every step's end is followed by its decision
			err := fmt.Errorf("step %s ended without a decision", step.ID)
			r.End(EndFailed, "", err.Error())
			return "", err
		}
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
func (r *Runner) Skip(step *playbook.Step, why string) StepState {
	r.emit(step.ID, r.stepStart(step))
	return r.finish(step, StepEnd{State: StateSkipped, Reason: why}, "")
}

func (r *Runner) stepStart(step *playbook.Step) *StepStart {
	return &StepStart{Title: step.Title, Hypothesis: step.Hypothesis, Reproduce: step.Reproduce,
		Knobs: step.Knobs, DurationS: r.duration(step).Seconds()}
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

// finish records the end of a step and the decision on it: where the
// playbook goes on the outcome its state selects, or the runner's own
// conclusion when it has one (own) because the playbook's branches cannot
// apply.
func (r *Runner) finish(step *playbook.Step, end StepEnd, own string) StepState {
	r.emit(step.ID, &end)
	// The playbook's words are for a judged outcome; for any other, say
	// what really happened.
	d := Decision{Meaning: end.Reason, Conclusion: own}
	st := r.stepState(step.ID)
	switch left := st.RevertFailure(); {
	case left != nil:
		// The walk stops here: neither the playbook's next step nor a
		// conclusion drawn on a host left changed.
		d = Decision{Meaning: left.Error()}
	case own == "":
		o := end.State.Outcome()
		t := step.Target(o)
		d.Next, d.Conclusion = t.Next, t.Conclude
		if end.State.judged() {
			d.Meaning = step.Meaning[o]
		}
		if d.Conclusion != "" {
			// A step that could not tell, with no unavailable branch of its
			// own, takes persists' words (the parser copies them): they
			// assert what it did not measure.
			asserted := end.State.judged() || step.Unavailable != step.Persists
			r.mu.Lock()
			d.Playbook = d.Conclusion
			d.Conclusion = r.walk.conclude(step.ID, d.Conclusion, asserted)
			r.mu.Unlock()
		}
	}
	r.emit(step.ID, &d)
	return r.stepState(step.ID)
}

// verdictOptions judge a step on the playbook's metric, or, once the
// reproduce step regressed on another, on that one.
func (r *Runner) verdictOptions() verdict.Options {
	pb := r.opt.Playbook
	o := verdict.Options{Metric: pb.Metric, Threshold: pb.Threshold}
	r.mu.Lock()
	defer r.mu.Unlock()
	if s := r.walk.Reproduce(); s != nil && s.JudgedOn != "" && s.State == StateRegressed {
		o.Metric = s.JudgedOn
	}
	return o
}
