package session

import (
	"fmt"
	"slices"

	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/session/verdict"
)

// judgement is what the verdicts of a step say, before the playbook says
// what that means.
type judgement struct {
	state    State
	verdicts []Verdict
	note     string
	// judgedOn is, for a reproduce step that regressed, the metric the
	// later steps are judged on (see verdict.Clearest).
	judgedOn string
}

// judge compares a step's samples with the reference (the known-good run,
// may be empty) and with the reproduced regression (empty for the
// reproduce step itself). The reproduce step is judged on every metric the
// workload measures (see judgeReproduce); the others on opt.Metric, the
// one the reproduce step regressed on.
func judge(reproduce bool, ref, repro, step []probe.Sample, opt verdict.Options, warmup probe.Duration) (judgement, error) {
	opt = opt.WithDefaults()
	// A tool measures fewer fields than the probe (pgbench gives no
	// percentiles): judge on what all three runs really measured.
	metric, substituted := verdict.Pick(opt.Metric, verdict.Measured(ref, repro, step))
	opt.Metric = metric
	if !reproduce && len(ref) == 0 && len(repro) == 0 {
		return judgement{state: StateInconclusive,
			note: "nothing to judge against: no reference and no measured reproduce step (run the reproduce step first, or pass --reference)"}, nil
	}
	stepV, err := values(step, opt.Metric, warmup)
	if err != nil {
		return judgement{}, err
	}
	if reproduce && len(ref) > 0 {
		return judgeReproduce(ref, step, opt, warmup, substituted)
	}
	var j judgement
	// against judges the step against one baseline's samples, and keeps
	// the verdict.
	against := func(a Against, base []probe.Sample, baseName string) (*verdict.Verdict, error) {
		baseV, err := values(base, opt.Metric, warmup)
		if err != nil {
			return nil, err
		}
		o := opt
		o.BaseName = baseName
		v := verdict.Compare(baseV, stepV, o)
		if substituted != "" {
			v.Why = substituted + "; " + v.Why
		}
		j.verdicts = append(j.verdicts, Verdict{Against: a, Verdict: v})
		return &v, nil
	}
	var vsRef, vsRepro *verdict.Verdict
	if len(ref) > 0 {
		if vsRef, err = against(AgainstReference, ref, "the reference"); err != nil {
			return judgement{}, err
		}
	}
	if reproduce {
		j.state = StateMeasured
		j.note = "no reference: this step is the baseline the others are judged against"
		return j, nil
	}
	if vsRepro, err = against(AgainstRegression, repro, "the regression"); err != nil {
		return judgement{}, err
	}
	j.state, j.note = decideStep(vsRef, vsRepro)
	return j, nil
}

// decideStep is the state a later step's two verdicts together decide:
// against the reference (nil without one) and against the regression.
// Improved against the regression and not decisively worse than the
// reference is gone; decisively worse than the reference is persists,
// even when better than the regression (a part of it went away); the same
// as the regression or worse is persists unless the reference says the
// step is as good as it. A step as good as the reference yet no better
// than the regression is inconclusive (the two baselines contradict each
// other), and so is what neither settles.
func decideStep(vsRef, vsRepro *verdict.Verdict) (State, string) {
	ref := verdict.Inconclusive
	if vsRef != nil {
		ref = vsRef.Outcome
	}
	repro := vsRepro.Outcome
	switch {
	case ref == verdict.Regressed && repro == verdict.Improved:
		return StatePersists, fmt.Sprintf("better than the regression (%.2fx) but still slower than the reference (%.2fx)", vsRepro.Ratio, vsRef.Ratio)
	case ref == verdict.Regressed:
		return StatePersists, ""
	case repro == verdict.Improved:
		return StateGone, ""
	case ref == verdict.Same || ref == verdict.Improved:
		if repro == verdict.Inconclusive {
			return StateGone, ""
		}
		// As good as the reference and no better than the regression: on
		// this metric the two runs are too close for the step to side
		// with either.
		return StateInconclusive, fmt.Sprintf("not known: the step is %s against the reference (%.2fx) and %s against the regression (%.2fx); the walk goes on as for a step that could not run",
			ref, vsRef.Ratio, repro, vsRepro.Ratio)
	case repro == verdict.Same || repro == verdict.Regressed:
		return StatePersists, ""
	}
	return StateInconclusive, "not known: the step's seconds and the baseline's overlap too much to tell, even at its longest; the walk goes on as for a step that could not run"
}

// judgeReproduce judges the reproduce step against the reference on every
// metric the two runs measured, at a family-wise level so that looking at
// more of them makes a false alarm no likelier. A decisive regression on
// any is a regression; the verdict the later steps are judged on comes
// first (Walk.Metric reads it), and the note says what regressed and what
// did not.
func judgeReproduce(ref, step []probe.Sample, opt verdict.Options, warmup probe.Duration, substituted string) (judgement, error) {
	o := opt
	o.BaseName = "the reference"
	vs, err := verdict.CompareAll(verdict.Trim(ref, warmup.Std()), verdict.Trim(step, warmup.Std()), o)
	if err != nil {
		return judgement{}, err
	}
	if substituted != "" {
		vs[0].Why = substituted + "; " + vs[0].Why
	}
	var j judgement
	c := verdict.Clearest(vs)
	switch {
	case c >= 0:
		j.state, j.judgedOn = StateRegressed, vs[c].Metric
		j.note = fmt.Sprintf("%s; the later steps are judged on %s", verdict.Across(vs), j.judgedOn)
		if c != 0 {
			j.note += fmt.Sprintf(" (the playbook's %s did not regress)", opt.Metric)
		}
		first := vs[c]
		vs = append([]verdict.Verdict{first}, slices.Delete(vs, c, c+1)...)
	case vs[0].Outcome == verdict.Same || vs[0].Outcome == verdict.Improved:
		j.state = StateSame
	default:
		j.state = StateInconclusive
	}
	if c < 0 && len(vs) > 1 {
		j.note = "no metric regressed: " + verdict.Across(vs)
	}
	for _, v := range vs {
		j.verdicts = append(j.verdicts, Verdict{Against: AgainstReference, Verdict: v})
	}
	return j, nil
}

func values(samples []probe.Sample, metric string, warmup probe.Duration) ([]float64, error) {
	return verdict.Values(verdict.Trim(samples, warmup.Std()), metric)
}
