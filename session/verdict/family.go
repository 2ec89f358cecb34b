package verdict

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/perfbisect/perfbisect/probe"
)

// Family is the metrics a run is judged on when a regression may show in
// any of them (the reproduce step: a throttled device halves the
// throughput and stretches the tail while the median write stays fast).
// primary, the playbook's metric, comes first; then the throughput
// (ops_per_s, else mib_per_s) and the latencies a one-line summary shows
// (probe.Latencies: the probe's p50, p99 and max; a tool's own), each
// once and only if every run measured it (have). An unknown primary is
// kept, so that judging on it fails as it would alone.
func Family(primary string, have probe.Fields) []string {
	out := []string{primary}
	add := func(f probe.Field) {
		if have.Has(f) && !slices.Contains(out, f.String()) {
			out = append(out, f.String())
		}
	}
	if have.Has(probe.FieldOps) {
		add(probe.FieldOps)
	} else {
		add(probe.FieldMiB)
	}
	for _, f := range probe.Latencies(have) {
		add(f)
	}
	return out
}

// Familywise is o for one of k comparisons made together, so that the
// chance that any of them calls a change where there is none stays at
// most o.Alpha (Bonferroni): the U test at Alpha/k, and the interval on
// the ratio, which must clear the threshold, at the confidence 1-(1-c)/k.
// Bonferroni rather than Holm: a verdict needs both the test and the
// interval, and the interval has no step-down form.
func (o Options) Familywise(k int) Options {
	o = o.WithDefaults()
	if k > 1 {
		o.Alpha /= float64(k)
		o.Confidence = 1 - (1-o.Confidence)/float64(k)
	}
	return o
}

// CompareAll judges step against base on each metric of Family(opt.Metric,
// have) at the family-wise level, in that order; base and step are the
// runs' seconds after their warm-up. The first verdict is on opt.Metric.
func CompareAll(base, step []probe.Sample, opt Options) ([]Verdict, error) {
	metrics := Family(opt.WithDefaults().Metric, Measured(base, step))
	o := opt.Familywise(len(metrics))
	out := make([]Verdict, 0, len(metrics))
	for _, m := range metrics {
		b, err := Values(base, m)
		if err != nil {
			return nil, err
		}
		s, err := Values(step, m)
		if err != nil {
			return nil, err
		}
		o.Metric = m
		out = append(out, Compare(b, s, o))
	}
	return out, nil
}

// Clearest is the index of the regressed verdict the later steps are to be
// judged on: the first (the playbook's metric) when it regressed, else the
// one whose interval lies furthest beyond 1x; -1 when none regressed.
func Clearest(vs []Verdict) int {
	best, clearest := -1, 0.0
	for i, v := range vs {
		if v.Outcome != Regressed {
			continue
		}
		if i == 0 {
			return 0
		}
		// The near end of the interval, as a distance from 1x that is the
		// same for a latency doubled and a throughput halved.
		c := math.Log(v.CILow)
		if !HigherIsWorse(v.Metric) {
			c = -math.Log(v.CIHigh)
		}
		if best < 0 || c > clearest {
			best, clearest = i, c
		}
	}
	return best
}

// Across says in one clause what the verdicts of one step on several
// metrics found: "regressed on ops/s 0.07x, p99 41x; not on p50 0.99x
// (same), max 1.4x (inconclusive)".
func Across(vs []Verdict) string {
	var bad, rest []string
	for _, v := range vs {
		r := "?"
		if v.BaseMedian != 0 {
			r = FormatRatio(v.Ratio) + "x"
		}
		if v.Outcome == Regressed {
			bad = append(bad, Label(v.Metric)+" "+r)
			continue
		}
		rest = append(rest, fmt.Sprintf("%s %s (%s)", Label(v.Metric), r, v.Outcome))
	}
	var parts []string
	if len(bad) > 0 {
		parts = append(parts, "regressed on "+strings.Join(bad, ", "))
	}
	if len(rest) > 0 {
		parts = append(parts, "not on "+strings.Join(rest, ", "))
	}
	return strings.Join(parts, "; ")
}
