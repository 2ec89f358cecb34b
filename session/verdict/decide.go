package verdict

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// decide sets v.Outcome and v.Why from the numbers already in v. The band
// is [1-Threshold, 1+Threshold] on the ratio. In order:
//
//   - the interval entirely inside the band: Same, confidently small;
//   - p < Alpha and the ratio outside the band: Regressed or Improved by
//     direction — but only if the whole interval lies beyond the band, so
//     the outcome never contradicts the interval and a drift of a few
//     percent between two runs of the same setup is not called a change;
//   - otherwise Inconclusive: more seconds may tell (a significant change of
//     the medians under the threshold is not "the same" while the interval
//     reaches past it).
//
// noCI says why v has no interval, if it has none; settled, that more
// seconds of this step would not change that (the baseline has stalls).
// note is a warning of the U test (too few samples for its alpha), said when
// the outcome is Inconclusive.
func decide(v *Verdict, o Options, noCI string, settled bool, note string) {
	lo, hi := 1-o.Threshold, 1+o.Threshold
	pct := fmtPct(o.Threshold)
	significant := v.P < o.Alpha
	outside := v.Ratio < lo || v.Ratio > hi
	ci := v.HasCI()

	var why string
	switch {
	case ci && v.CILow >= lo && v.CIHigh <= hi:
		v.Outcome, why = Same, "the same, within ±"+pct
	case significant && outside && !ci:
		v.Outcome, why = Inconclusive, "~ significant by the U test, but "+noCI
	case significant && outside && (v.Ratio > 1 && v.CILow > hi || v.Ratio < 1 && v.CIHigh < lo):
		v.Outcome = Improved
		if (v.Ratio > 1) == HigherIsWorse(v.Metric) {
			v.Outcome = Regressed
		}
		why = fmt.Sprintf("%s, beyond the %s threshold", v.Outcome, pct)
	case significant && outside && v.CILow <= 1 && v.CIHigh >= 1:
		v.Outcome, why = Inconclusive, "~ significant by the U test, but the interval still includes 1x"
	case significant && outside && (v.Ratio > 1 && v.CILow > 1 || v.Ratio < 1 && v.CIHigh < 1):
		// Per-second samples of one run are not independent: two runs of
		// the same setup on a real disk differ by a few percent more often
		// than the U test expects. The threshold is the smallest change
		// worth a verdict, so the whole interval must clear it.
		v.Outcome, why = Inconclusive, fmt.Sprintf("~ a change, but the interval reaches inside the %s threshold", pct)
	case significant && outside:
		v.Outcome, why = Inconclusive, "~ the medians and the interval disagree on the direction"
	case significant && ci && (v.CILow > hi || v.CIHigh < lo):
		v.Outcome, why = Inconclusive, fmt.Sprintf("~ the medians differ by less than %s but the interval lies beyond it", pct)
	case significant && ci:
		// "The same" needs the whole interval inside the band (the first
		// case): a median change under the threshold whose interval
		// reaches past it may still be a change worth a verdict.
		v.Outcome, why = Inconclusive, fmt.Sprintf("~ the medians differ by less than %s, but the interval reaches beyond it", pct)
	case significant:
		v.Outcome, why = Inconclusive, "~ significant by the U test, but "+noCI
	case !ci:
		v.Outcome, why = Inconclusive, fmt.Sprintf("~ not significant at alpha %v, and %s", o.Alpha, noCI)
	default:
		v.Outcome, why = Inconclusive, fmt.Sprintf("~ not significant at alpha %v, and the interval reaches beyond ±%s", o.Alpha, pct)
	}
	if v.Outcome == Inconclusive {
		if note != "" {
			why += "; " + note
		}
		if ci || !settled {
			why += "; more seconds may tell"
		}
	}
	v.Why = fmt.Sprintf("%s %sx %s (%s): %s", Label(v.Metric), FormatRatio(v.Ratio), o.BaseName, v.stats(), why)
}

// stats is "95% CI 1.81x-2.02x, p=0.000, n=8+8".
func (v Verdict) stats() string {
	ci := "no CI"
	if v.HasCI() {
		ci = fmt.Sprintf("%d%% CI %sx-%sx", coveragePct(v.Confidence), FormatRatio(v.CILow), FormatRatio(v.CIHigh))
	}
	return fmt.Sprintf("%s, p=%.3f, n=%d+%d", ci, v.P, v.NBase, v.NStep)
}

// String is one benchstat-like line:
//
//	0.712ms -> 1.352ms  1.90x [1.81x, 2.02x]  p=0.000 n=8+8  regressed
func (v Verdict) String() string {
	unit := ""
	switch f, err := lookup(v.Metric); {
	case err != nil:
	case f.IsLatency():
		unit = f.Unit() // glued, as benchstat writes it: 0.712ms
	default:
		unit = " " + f.Unit() // 5123 ops/s
	}
	ratio := "?"
	if v.BaseMedian != 0 {
		ratio = FormatRatio(v.Ratio) + "x"
	}
	ci := "[no CI]"
	if v.HasCI() {
		ci = fmt.Sprintf("[%sx, %sx]", FormatRatio(v.CILow), FormatRatio(v.CIHigh))
	}
	return fmt.Sprintf("%s%s -> %s%s  %s %s  p=%.3f n=%d+%d  %s",
		fmtValue(v.BaseMedian), unit, fmtValue(v.StepMedian), unit, ratio, ci, v.P, v.NBase, v.NStep, v.Outcome)
}

// label is the short name of a metric in a sentence: "p50", "ops/s".
// Label is a metric as people read it ("p50", "ops/s"), or its name
// when it is none the verdicts know.
func Label(metric string) string {
	if f, err := lookup(metric); err == nil {
		return f.Label()
	}
	return metric
}

// coveragePct rounds a coverage down to a whole percent, so a 95.02%
// interval is not called 96% nor a 99.96% one 100%.
func coveragePct(c float64) int { return int(math.Floor(100*c + 1e-9)) }

func fmtPct(f float64) string { return strconv.FormatFloat(100*f, 'g', 4, 64) + "%" }

// FormatRatio writes a ratio of medians with the digits that matter: 0.0024,
// not 0.00; 410, not 409.58.
func FormatRatio(r float64) string {
	switch {
	case r >= 100:
		return fmt.Sprintf("%.0f", r)
	case r >= 10:
		return fmt.Sprintf("%.1f", r)
	case r >= 0.01 || r == 0:
		return fmt.Sprintf("%.2f", r)
	}
	return fmt.Sprintf("%.2g", r)
}

func fmtValue(x float64) string {
	if math.Abs(x) >= 1000 {
		return fmt.Sprintf("%.0f", x)
	}
	return strings.TrimSuffix(strconv.FormatFloat(x, 'g', 4, 64), ".")
}
