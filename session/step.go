package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/knob"
	"github.com/perfbisect/perfbisect/session/playbook"
)

// StateInterrupted ends a step stopped by Ctrl-C or a quit.
const StateInterrupted State = "interrupted"

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
func (r *Runner) Step(ctx context.Context, step *playbook.Step) (res StepResult) {
	begin := r.opt.Now()
	took := func() time.Duration { return r.opt.Now().Sub(begin) }
	r.extra.Store(0) // an x pressed from here on counts for this step
	r.emit(step.ID, r.stepStart(step))
	res = StepResult{Step: step}
	var done []applied // the knobs applied and not yet put back
	stop := func(state State, why, outcome string) StepResult {
		// Put back before the step's end is recorded: the log must not
		// close a step whose knobs are still applied.
		r.revertAll(ctx, step.ID, done)
		done = nil
		res.State, res.Reason = state, why
		return r.finish(step, res, outcome, took())
	}

	spec := r.opt.Workload
	changes, unavailable, err := r.plan(ctx, step, spec)
	switch {
	case unavailable != nil:
		return stop(StateUnavailable, unavailable.Error(), "unavailable")
	case err != nil:
		r.emit(step.ID, &ErrorEvent{Message: err.Error(), Action: "the step does not run; nothing was changed"})
		return stop(StateFailed, err.Error(), "unavailable")
	}
	if len(changes) > 0 && r.opt.Confirm != nil {
		ok, err := r.opt.Confirm(ctx, step, changes)
		if err != nil {
			return stop(StateSkipped, fmt.Sprintf("could not ask before changing the host: %v", err), "unavailable")
		}
		if !ok {
			return stop(StateSkipped, "the operator declined the changes", "unavailable")
		}
	}

	defer func() {
		// Runs on every way out of the step, a panic included.
		r.revertAll(ctx, step.ID, done)
	}()
	for _, use := range step.Knobs {
		ku := knob.Use{Knob: use.Knob, With: use.With}
		next, ch, revert, err := r.opt.Host.Apply(ctx, ku, spec, r.opt.Operator)
		var un *knob.Unavailable
		if errors.As(err, &un) {
			r.emit(step.ID, &KnobEvent{Action: KnobUnavailable, Change: knob.Change{Knob: use.Knob, Settings: use.With}, Error: un.Reason})
			return stop(StateUnavailable, un.Error(), "unavailable")
		}
		if err != nil {
			r.emit(step.ID, &ErrorEvent{Message: fmt.Sprintf("apply %s: %v", use.Knob, err), Action: "the step stops; what was applied is put back"})
			return stop(StateFailed, fmt.Sprintf("apply %s: %v", use.Knob, err), "unavailable")
		}
		done = append(done, applied{ch, revert})
		r.emit(step.ID, &KnobEvent{Action: KnobApplied, Change: ch})
		spec = next
	}

	samples, sum, stoppedEarly, err := r.measure(ctx, step, spec)
	res.Summary = sum
	r.revertAll(ctx, step.ID, done)
	done = nil
	if step.Reproduce {
		r.repro = samples
	}
	switch {
	case ctx.Err() != nil:
		return stop(StateInterrupted, "interrupted", "unavailable")
	case err != nil && !stoppedEarly:
		r.emit(step.ID, &ErrorEvent{Message: err.Error(), Action: fmt.Sprintf("step ended after %d s; its samples are kept", len(samples))})
		if step.Reproduce {
			res.State, res.Reason = StateFailed, err.Error()
			return r.conclude(step, res, took(), "The reproduce step could not be measured ("+err.Error()+"); without it no other step can be judged. Fix the workload and run again.")
		}
		return stop(StateFailed, err.Error(), "unavailable")
	}

	j, err := judge(step.Reproduce, r.opt.Reference, r.repro, samples, r.verdictOptions(), r.opt.Playbook.Warmup)
	if err != nil {
		return stop(StateFailed, err.Error(), "unavailable")
	}
	for i := range j.verdicts {
		r.emit(step.ID, &j.verdicts[i])
	}
	res.Verdicts = j.verdicts
	if step.Reproduce && j.state == StateInconclusive {
		// Not knowing whether the regression is there is not the
		// playbook's "persists" or "gone": say so and stop.
		res.State, res.Reason = j.state, j.verdicts[0].Why
		return r.conclude(step, res, took(), fmt.Sprintf(
			"Not known whether the regression is here: after %d s the reproduce step is still inconclusive against the reference (%s). Run it longer (--max-duration), on a quieter host, or with a steadier workload.",
			len(samples), j.verdicts[0].Why))
	}
	return stop(j.state, j.note, j.outcome)
}

// plan asks the host what each knob would change, and records it.
func (r *Runner) plan(ctx context.Context, step *playbook.Step, spec probe.Spec) ([]knob.Change, *knob.Unavailable, error) {
	var changes []knob.Change
	for _, use := range step.Knobs {
		ku := knob.Use{Knob: use.Knob, With: use.With}
		ch, err := r.opt.Host.Plan(ctx, ku, spec)
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
	base, limit := r.duration(step), r.maxDuration(step)
	// Without a baseline no length of step can tell: run it as planned.
	canJudge := len(r.opt.Reference) > 0 || !step.Reproduce && len(r.repro) > 0
	if !canJudge {
		limit = base
	}
	spec.Duration = probe.Duration(limit + workloadSlack)
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	run, err := r.opt.Host.Run(runCtx, spec)
	if err != nil {
		return nil, nil, false, err
	}
	var samples []probe.Sample
	stopped := false
	var noted time.Duration // the extension the log has been told of
	for s := range run.Samples() {
		samples = append(samples, s)
		r.emit(step.ID, &s)
		if stopped {
			continue
		}
		at, extra := time.Duration(s.Sec)*time.Second, time.Duration(r.extra.Load())
		if extra != noted {
			noted = extra
			r.emit(step.ID, &Note{Text: fmt.Sprintf("the operator extended the step to %v (and, while not yet judged, up to %v)", base+extra, limit+extra)})
		}
		switch {
		case at >= limit+extra:
			stopped = true
		case canJudge && at >= base+extra:
			j, err := judge(step.Reproduce, r.opt.Reference, r.repro, samples, r.verdictOptions(), r.opt.Playbook.Warmup)
			stopped = err == nil && j.state != StateInconclusive // known: stop here, not at the limit
		}
		if stopped {
			cancel()
		}
	}
	sum, err := run.Wait()
	if stopped && err == nil && sum.Ended == probe.EndInterrupted {
		sum.Ended, sum.Error = probe.EndCompleted, ""
	}
	return samples, &sum, stopped, err
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

// conclude ends a step with a conclusion of the runner's own, for when the
// playbook's branches cannot apply.
func (r *Runner) conclude(step *playbook.Step, res StepResult, took time.Duration, conclusion string) StepResult {
	r.emit(step.ID, &StepEnd{State: res.State, Reason: res.Reason, Summary: res.Summary, DurationS: took.Seconds()})
	res.Decision = Decision{State: res.State, Meaning: res.Reason, Conclusion: conclusion}
	r.emit(step.ID, &res.Decision)
	r.results = append(r.results, res)
	return res
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
