package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/journal"
	"github.com/perfbisect/perfbisect/probe/knob"
	"github.com/perfbisect/perfbisect/session/playbook"
)

// revertTimeout bounds the reverts of a step that run after its context
// is cancelled: a quit must still put the host back.
const revertTimeout = 2 * time.Minute

// applied is a knob that changed the host and how to put it back.
type applied struct {
	change knob.Change
	revert knob.Revert
}

// Step runs one step: it plans its knobs, asks before changing the host,
// applies them, measures, puts every knob back (also on error, on a
// cancelled ctx and on panic), judges, and records the playbook's decision.
func (r *Runner) Step(ctx context.Context, step *playbook.Step) StepState {
	begin := r.opt.Now()
	took := func() float64 { return r.opt.Now().Sub(begin).Seconds() }
	r.emit(step.ID, r.stepStart(step))
	// An x pressed from here on (while the knobs are planned and applied,
	// or the workload runs) counts for this step; none once it is stopping.
	base, limit, _ := r.limits(step)
	r.extendable(base, limit)
	defer r.extendable(0, 0)
	var sum *probe.Summary
	var done []applied // the knobs applied and not yet put back
	stop := func(state State, why string) StepState {
		// Put back before the step's end is recorded: the log must not
		// close a step whose knobs are still applied.
		r.revertAll(ctx, step.ID, done)
		done = nil
		return r.finish(step, StepEnd{State: state, Reason: why, Summary: sum, DurationS: took()}, "")
	}

	spec := r.opt.Workload
	if res := r.opt.Results[step.ID]; res != nil {
		return r.elsewhere(step, res, took) // measured on another machine: nothing changes here
	}
	changes, unavailable, err := r.plan(ctx, step, spec)
	switch {
	case unavailable != nil:
		return stop(StateUnavailable, unavailable.Error())
	case err != nil:
		r.emit(step.ID, &ErrorEvent{Message: err.Error(), Action: "the step does not run; nothing was changed"})
		return stop(StateFailed, err.Error())
	}
	op := r.opt.Operator
	if mo, ok := op.(ManualOperator); ok && ByHand(step) {
		// Its instructions are the confirmation: the operator makes the
		// change, here or on another machine.
		res, here, err := mo.ManualStep(ctx, step, changes)
		switch {
		case err != nil:
			return stop(StateSkipped, fmt.Sprintf("could not ask the operator: %v", err))
		case res != nil:
			return r.elsewhere(step, res, took)
		case !here:
			return stop(StateSkipped, "the operator declined the change by hand")
		}
		op = &answered{Operator: mo, left: len(step.Knobs)}
	} else if len(changes) > 0 && r.opt.Confirm != nil {
		ok, err := r.opt.Confirm(ctx, step, changes)
		if err != nil {
			return stop(StateSkipped, fmt.Sprintf("could not ask before changing the host: %v", err))
		}
		if !ok {
			return stop(StateSkipped, "the operator declined the changes")
		}
	}

	defer func() {
		// Runs on every way out of the step, a panic included.
		r.revertAll(ctx, step.ID, done)
	}()
	for _, use := range step.Knobs {
		next, ch, revert, err := r.opt.Host.Apply(journal.WithStep(ctx, step.ID), use, spec, op)
		var un *knob.Unavailable
		if errors.As(err, &un) {
			r.emit(step.ID, &KnobEvent{Action: KnobUnavailable, Change: knob.Change{Knob: use.Knob, Settings: use.With}, Error: un.Reason})
			return stop(StateUnavailable, un.Error())
		}
		if err != nil {
			r.emit(step.ID, &ErrorEvent{Message: fmt.Sprintf("apply %s: %v", use.Knob, err), Action: "the step stops; what was applied is put back"})
			return stop(StateFailed, fmt.Sprintf("apply %s: %v", use.Knob, err))
		}
		done = append(done, applied{ch, revert})
		r.emit(step.ID, &KnobEvent{Action: KnobApplied, Change: ch})
		spec = next
	}

	samples, sum, stoppedEarly, err := r.measure(ctx, step, spec)
	r.revertAll(ctx, step.ID, done)
	done = nil
	switch {
	case ctx.Err() != nil:
		return stop(StateInterrupted, "interrupted")
	case err != nil && !stoppedEarly:
		r.emit(step.ID, &ErrorEvent{Message: err.Error(), Action: fmt.Sprintf("step ended after %d s; its samples are kept", len(samples))})
		if step.Reproduce {
			return r.finish(step, StepEnd{State: StateFailed, Reason: err.Error(), Summary: sum, DurationS: took()},
				"The reproduce step could not be measured ("+err.Error()+"); without it no other step can be judged. Fix the workload and run again.")
		}
		return stop(StateFailed, err.Error())
	}

	return r.judged(step, samples, sum, took())
}

// judged judges a step's samples, measured here or elsewhere, and records
// its end and the decision; its knobs are all put back by now.
func (r *Runner) judged(step *playbook.Step, samples []probe.Sample, sum *probe.Summary, took float64) StepState {
	j, err := judge(step.Reproduce, r.opt.Reference, r.regression(), samples, r.verdictOptions(), r.opt.Playbook.Warmup)
	if err != nil {
		return r.finish(step, StepEnd{State: StateFailed, Reason: err.Error(), Summary: sum, DurationS: took}, "")
	}
	for i := range j.verdicts {
		r.emit(step.ID, &j.verdicts[i])
	}
	if step.Reproduce && j.state == StateInconclusive {
		// Not knowing whether the regression is there is not the
		// playbook's "persists" or "gone": say so and stop.
		why := j.verdicts[0].Why
		return r.finish(step, StepEnd{State: j.state, Reason: why, Summary: sum, DurationS: took}, fmt.Sprintf(
			"Not known whether the regression is here: after %d s the reproduce step is still inconclusive against the reference (%s). Run it longer (--max-duration), on a quieter host, or with a steadier workload.",
			len(samples), why))
	}
	return r.finish(step, StepEnd{State: j.state, Reason: j.note, Summary: sum, DurationS: took, JudgedOn: j.judgedOn}, "")
}

// plan asks the host what each knob would change, and records it.
func (r *Runner) plan(ctx context.Context, step *playbook.Step, spec probe.Spec) ([]knob.Change, *knob.Unavailable, error) {
	var changes []knob.Change
	for _, use := range step.Knobs {
		ch, err := r.opt.Host.Plan(ctx, use, spec, r.opt.Operator)
		var un *knob.Unavailable
		if errors.As(err, &un) {
			r.emit(step.ID, &KnobEvent{Action: KnobUnavailable, Change: knob.Change{Knob: use.Knob, Settings: use.With}, Error: un.Reason})
			return nil, un, nil
		}
		if err != nil {
			return nil, nil, fmt.Errorf("plan %s: %v", use.Knob, err)
		}
		r.emit(step.ID, &KnobEvent{Action: KnobPlanned, Change: ch})
		changes = append(changes, ch)
	}
	return changes, nil, nil
}

// measure runs the workload for the step's duration and, while the
// verdicts are not yet known, on up to its maximum duration (both moved on
// by Extend). The runner stops the workload itself, so an extension needs
// no restart. It returns every sample it got, even when the workload failed.
func (r *Runner) measure(ctx context.Context, step *playbook.Step, spec probe.Spec) ([]probe.Sample, *probe.Summary, bool, error) {
	base, limit, canJudge := r.limits(step)
	repro := r.regression()
	spec.Duration = probe.Duration(limit + workloadSlack)
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	run, err := r.opt.Host.Run(runCtx, spec)
	if err != nil {
		return nil, nil, false, err
	}
	var samples []probe.Sample
	stopped := false
	for s := range run.Samples() {
		samples = append(samples, s)
		r.emit(step.ID, &s)
		if stopped {
			continue
		}
		at, extra := time.Duration(s.Sec)*time.Second, time.Duration(r.extra.Load())
		switch {
		case at >= limit+extra:
			stopped = true
		case canJudge && at >= base+extra:
			j, err := judge(step.Reproduce, r.opt.Reference, repro, samples, r.verdictOptions(), r.opt.Playbook.Warmup)
			stopped = err == nil && j.state != StateInconclusive // known: stop here, not at the limit
		}
		if stopped {
			r.extendable(0, 0) // an x now would extend nothing
			cancel()
		}
	}
	sum, err := run.Wait()
	if stopped && err == nil && sum.Ended == probe.EndInterrupted {
		sum.Ended, sum.Error = probe.EndCompleted, ""
	}
	return samples, &sum, stopped, err
}

// limits are how long step runs (base), how far while its verdict is not
// yet known (limit), and whether any length can tell (without a baseline
// none can: it runs as planned).
func (r *Runner) limits(step *playbook.Step) (base, limit time.Duration, canJudge bool) {
	base, limit = r.duration(step), r.maxDuration(step)
	canJudge = len(r.opt.Reference) > 0 || !step.Reproduce && len(r.regression()) > 0
	if !canJudge {
		limit = base
	}
	return base, limit, canJudge
}

// extendable sets the limits Extend moves on, and clears what earlier
// extensions added; zero limits refuse an extension.
func (r *Runner) extendable(base, limit time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.base, r.limit = base, limit
	if base > 0 {
		r.extra.Store(0)
	}
}

// workloadSlack is how much longer than the runner's limit a workload is
// told to run: the runner stops it, and an extension needs room.
const workloadSlack = time.Hour

// revertAll puts back the applied knobs in reverse order, with a context of
// its own so that a quit still reverts. A revert that fails is recorded
// loudly with what to do by hand.
func (r *Runner) revertAll(ctx context.Context, step string, done []applied) {
	if len(done) == 0 {
		return
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), revertTimeout)
	defer cancel()
	for i := len(done) - 1; i >= 0; i-- {
		a := done[i]
		if err := a.revert(rctx); err != nil {
			r.emit(step, &KnobEvent{Action: KnobRevertFailed, Change: a.change, Error: err.Error()})
			r.emit(step, &ErrorEvent{Message: fmt.Sprintf("REVERT FAILED for %s: %v", a.change.Knob, err),
				Action: "the host is still changed: put it back by hand as the message says"})
			continue
		}
		r.emit(step, &KnobEvent{Action: KnobReverted, Change: a.change})
	}
}

// dryRun describes every step's changes in playbook order, applying none.
func (r *Runner) dryRun(ctx context.Context) (string, error) {
	for i := range r.opt.Playbook.Steps {
		step := &r.opt.Playbook.Steps[i]
		r.emit(step.ID, r.stepStart(step))
		_, un, err := r.plan(ctx, step, r.opt.Workload)
		end := &StepEnd{State: StateDryRun}
		switch {
		case un != nil:
			end.State, end.Reason = StateUnavailable, un.Error()
		case err != nil:
			end.State, end.Reason = StateFailed, err.Error()
		}
		r.emit(step.ID, end)
	}
	const c = "dry run: every change was described, none was applied, nothing was measured"
	r.End(EndConcluded, c, "")
	return c, nil
}

// RevertFailure says which of the step's knobs could not be put back, what
// they left changed and how to undo it by hand; nil when every one was.
func (s *StepState) RevertFailure() error {
	var left []string
	for _, c := range s.Changes {
		if c.Action != KnobRevertFailed {
			continue
		}
		what := fmt.Sprintf("%s (%s)", c.Change.Knob, c.Error)
		if len(c.Change.Undo) > 0 {
			what += "; put it back by hand: " + strings.Join(c.Change.Undo, "; ")
		}
		left = append(left, what)
	}
	if len(left) == 0 {
		return nil
	}
	return fmt.Errorf("REVERT FAILED in step %s, the host is still changed: %s. The walk stops: no later step runs on a host in an unknown state",
		s.ID, strings.Join(left, "; "))
}
