// Package verdict owns the statistics that judge one step of an
// investigation against another run from their per-second samples: the
// medians and Mann–Whitney U test of golang.org/x/perf/benchmath (as
// benchstat uses them), a distribution-free confidence interval on the ratio
// of the medians, and the three-state outcome Chromium's Pinpoint uses —
// different, same, or not yet known — with the reason in words.
package verdict

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/perfbisect/perfbisect/internal/series"
	"golang.org/x/perf/benchmath"
)

// Outcome of comparing a step with a baseline.
type Outcome string

const (
	Regressed    Outcome = "regressed"    // worse by more than the threshold, and significantly so
	Same         Outcome = "same"         // no change as large as the threshold
	Improved     Outcome = "improved"     // better by more than the threshold, and significantly so
	Inconclusive Outcome = "inconclusive" // not yet known: more seconds may tell
)

// Options say what to compare and how sure to be. A zero field takes its
// default.
type Options struct {
	Metric     string  // a per-second field of probe.Sample (see Metrics); default "p50_ms"
	Threshold  float64 // relative change below which a difference is "same"; default 0.10
	Alpha      float64 // significance level of the U test; default 0.05
	Confidence float64 // requested level of the interval on the ratio; default 0.95
	MinSamples int     // below this many values per side: Inconclusive; default 5
	// BaseName is what the baseline is called in Why: "the reference",
	// "the regression"; default "the baseline".
	BaseName string
}

// WithDefaults returns o with every zero field set to its default.
// DefaultThreshold is the smallest relative change worth a verdict.
const DefaultThreshold = 0.10

func (o Options) WithDefaults() Options {
	if o.Metric == "" {
		o.Metric = DefaultMetric
	}
	if o.Threshold == 0 {
		o.Threshold = DefaultThreshold
	}
	if o.Alpha == 0 {
		o.Alpha = 0.05
	}
	if o.Confidence == 0 {
		o.Confidence = 0.95
	}
	if o.MinSamples == 0 {
		o.MinSamples = 5
	}
	if o.BaseName == "" {
		o.BaseName = "the baseline"
	}
	return o
}

// Validate reports what is wrong with o once defaults are applied.
func (o Options) Validate() error {
	o = o.WithDefaults()
	var errs []error
	if _, err := lookup(o.Metric); err != nil {
		errs = append(errs, err)
	}
	if !(o.Threshold > 0 && o.Threshold < 1) {
		errs = append(errs, fmt.Errorf("threshold %v: want a fraction between 0 and 1, such as 0.10 for 10%%", o.Threshold))
	}
	if !(o.Alpha > 0 && o.Alpha < 1) {
		errs = append(errs, fmt.Errorf("alpha %v: want a significance level between 0 and 1, such as 0.05", o.Alpha))
	}
	if !(o.Confidence > 0 && o.Confidence < 1) {
		errs = append(errs, fmt.Errorf("confidence %v: want a level between 0 and 1, such as 0.95", o.Confidence))
	}
	if o.MinSamples < 1 {
		errs = append(errs, fmt.Errorf("min samples %d: want at least 1", o.MinSamples))
	}
	return errors.Join(errs...)
}

// Verdict is a step compared with a baseline. It holds no NaN or infinity,
// so it always encodes as JSON: an undefined Ratio is 0 (BaseMedian is 0),
// and a missing interval has CILow, CIHigh and Confidence 0 (see HasCI).
type Verdict struct {
	Metric     string  `json:"metric"`
	BaseMedian float64 `json:"base_median"`
	StepMedian float64 `json:"step_median"`
	Ratio      float64 `json:"ratio"`   // StepMedian / BaseMedian: the seeds' "multiplier"
	CILow      float64 `json:"ci_low"`  // confidence interval on the ratio
	CIHigh     float64 `json:"ci_high"` //
	// Confidence is the actual coverage of [CILow, CIHigh], which is at
	// least the requested Options.Confidence (ranks are whole numbers).
	Confidence float64 `json:"confidence"`
	P          float64 `json:"p"` // Mann-Whitney U two-sided p-value
	NBase      int     `json:"n_base"`
	NStep      int     `json:"n_step"`
	Outcome    Outcome `json:"outcome"`
	Why        string  `json:"why"` // one sentence a person can read
}

// HasCI reports whether the verdict has an interval on the ratio.
func (v Verdict) HasCI() bool { return v.Confidence > 0 }

// Compare judges step against base, each a list of per-second values of
// opt.Metric (see Values). It never fails: what cannot be judged is
// Inconclusive, and Why says why.
//
// The medians and the p-value are benchmath's (AssumeNothing: sample
// median, Mann–Whitney U test), as benchstat computes them. The interval on
// the ratio is the Moses interval that pairs with that test (see ci.go).
// Values must be finite and not negative. Zeros (seconds at 0 ops/s) are
// allowed on one side: in the step they are ratios of 0, in the base ratios
// of +Inf, and both order fine; an interval whose top is +Inf, or zeros on
// both sides (0/0 has no order), leave the verdict without an interval.
// Without one, Regressed and Improved are never said (see decide).
func Compare(base, step []float64, opt Options) Verdict {
	o := opt.WithDefaults()
	v := Verdict{Metric: o.Metric, NBase: len(base), NStep: len(step), P: 1}
	if err := o.Validate(); err != nil {
		v.Outcome, v.Why = Inconclusive, "cannot judge: "+oneLine(err)
		return v
	}
	if len(base) < o.MinSamples || len(step) < o.MinSamples {
		v.Outcome = Inconclusive
		v.Why = fmt.Sprintf("need at least %d seconds per side, have %d+%d", o.MinSamples, len(base), len(step))
		// Still show what was measured: the medians (and their ratio) are
		// facts even when too few to judge.
		v.BaseMedian, v.StepMedian = series.Median(base), series.Median(step)
		if v.BaseMedian > 0 {
			v.Ratio = v.StepMedian / v.BaseMedian
		}
		return v
	}
	x, y := clean(base), clean(step)
	if err := errors.Join(unusable(x, o.BaseName), unusable(y, "this step")); err != nil {
		v.Outcome, v.Why = Inconclusive, "cannot judge: "+oneLine(err)
		return v
	}

	th := &benchmath.Thresholds{CompareAlpha: o.Alpha}
	bs, ss := benchmath.NewSample(x, th), benchmath.NewSample(y, th) // sorts x and y
	v.BaseMedian = benchmath.AssumeNothing.Summary(bs, o.Confidence).Center
	v.StepMedian = benchmath.AssumeNothing.Summary(ss, o.Confidence).Center
	cmp := benchmath.AssumeNothing.Compare(bs, ss)
	v.P = cmp.P
	var note string
	if len(cmp.Warnings) > 0 {
		note = cmp.Warnings[0].Error()
	}

	var noCI string
	settled := false // more seconds of the step would not give an interval
	switch {
	case v.BaseMedian == 0:
		v.Outcome = Inconclusive
		v.Why = fmt.Sprintf("%s: the median of %s is 0, so a ratio means nothing (p=%.3f, n=%d+%d)",
			Label(o.Metric), o.BaseName, v.P, v.NBase, v.NStep)
		return v
	case x[0] == 0 && y[0] == 0:
		noCI = fmt.Sprintf("no interval: both runs have seconds at 0 %s, and 0/0 has no order", Label(o.Metric))
		settled = true
	default:
		lo, hi, coverage, ok := ratioCI(x, y, o.Confidence)
		if ok {
			v.CILow, v.CIHigh, v.Confidence = lo, hi, coverage
		} else if x[0] == 0 {
			noCI = fmt.Sprintf("no finite interval: %s has too many seconds at 0 %s", o.BaseName, Label(o.Metric))
			settled = true
		} else {
			noCI = fmt.Sprintf("no interval at %s with n=%d+%d", fmtPct(o.Confidence), v.NBase, v.NStep)
		}
	}
	v.Ratio = v.StepMedian / v.BaseMedian
	decide(&v, o, noCI, settled, note)
	return v
}

// clean copies values, so that sorting them leaves the caller's alone, and
// turns -0 into 0 (x/-0 is -Inf, which would misorder the ratios).
func clean(values []float64) []float64 {
	c := slices.Clone(values)
	for i, v := range c {
		if v == 0 {
			c[i] = 0
		}
	}
	return c
}

// unusable says why the values of the run called name cannot be judged.
func unusable(values []float64, name string) error {
	for _, v := range values {
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			return fmt.Errorf("%s has a value that is not a finite number (%v)", name, v)
		case v < 0:
			return fmt.Errorf("%s has a negative value (%v), which no metric can have", name, v)
		}
	}
	return nil
}

// oneLine is err, whose errors.Join parts are on lines of their own, as one
// clause of a sentence.
func oneLine(err error) string { return strings.ReplaceAll(err.Error(), "\n", "; ") }
