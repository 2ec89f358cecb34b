package session

import (
	"fmt"

	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/session/verdict"
)

// judgement is what the verdicts of a step say, before the playbook says
// what that means.
type judgement struct {
	state    State
	verdicts []Verdict
	note     string
}

// judge compares a step's samples with the reference (the known-good run,
// may be empty) and with the reproduced regression (empty for the
// reproduce step itself).
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
	if !reproduce {
		if vsRepro, err = against(AgainstRegression, repro, "the regression"); err != nil {
			return judgement{}, err
		}
	}

	switch {
	case reproduce && vsRef == nil:
		j.state = StateMeasured
		j.note = "no reference: this step is the baseline the others are judged against"
	case reproduce:
		switch vsRef.Outcome {
		case verdict.Regressed:
			j.state = StateRegressed
		case verdict.Same, verdict.Improved:
			j.state = StateSame
		default:
			j.state = StateInconclusive
		}
	case vsRef != nil && (vsRef.Outcome == verdict.Same || vsRef.Outcome == verdict.Improved):
		j.state = StateGone
	case vsRef != nil && vsRef.Outcome == verdict.Regressed && vsRepro.Outcome == verdict.Improved:
		j.state = StatePersists
		j.note = fmt.Sprintf("better than the regression (%.2fx) but still slower than the reference (%.2fx)", vsRepro.Ratio, vsRef.Ratio)
	case vsRepro.Outcome == verdict.Same || vsRepro.Outcome == verdict.Regressed:
		j.state = StatePersists
	case vsRef == nil && vsRepro.Outcome == verdict.Improved:
		j.state = StateGone
	default:
		j.state = StateInconclusive
		j.note = "not known: the step's seconds and the baseline's overlap too much to tell, even at its longest; the walk goes on as for a step that could not run"
	}
	return j, nil
}

func values(samples []probe.Sample, metric string, warmup probe.Duration) ([]float64, error) {
	return verdict.Values(verdict.Trim(samples, warmup.Std()), metric)
}
