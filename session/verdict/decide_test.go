package verdict

import (
	"strings"
	"testing"
)

// The rule alone, on constructed numbers: ratio, interval, p.
func TestDecide(t *testing.T) {
	uu := map[string]struct {
		metric        string
		ratio, lo, hi float64 // hi 0: no interval
		p             float64
		want          Outcome
		why           string
	}{
		"interval inside the band":          {"p50_ms", 1.02, 0.97, 1.06, 0.446, Same, "the same, within ±10%"},
		"interval on the band's edges":      {"p50_ms", 1.00, 0.90, 1.10, 0.9, Same, "within ±10%"},
		"interval inside though p is small": {"p50_ms", 1.04, 1.02, 1.06, 0.001, Same, "within ±10%"},
		"latency up":                        {"p50_ms", 1.9, 1.81, 2.02, 0.0002, Regressed, "regressed, beyond the 10% threshold"},
		"latency down":                      {"p99_ms", 0.5, 0.45, 0.55, 0.0002, Improved, "improved, beyond the 10% threshold"},
		"throughput halved":                 {"ops_per_s", 0.5, 0.45, 0.55, 0.0002, Regressed, "regressed"},
		"throughput doubled":                {"mib_per_s", 2, 1.8, 2.2, 0.0002, Improved, "improved"},
		"significant, interval straddles 1": {"p50_ms", 1.3, 0.95, 1.6, 0.01, Inconclusive, "significant by the U test, but the interval still includes 1x"},
		"significant, interval the other way": {
			"p50_ms", 1.3, 0.7, 0.9, 0.01, Inconclusive, "disagree on the direction"},
		"significant, small, interval across": {"p50_ms", 1.06, 1.01, 1.15, 0.01, Inconclusive, "differ by less than 10%, but the interval reaches beyond it"},
		"significant, small, interval inside": {"p50_ms", 1.06, 1.02, 1.09, 0.01, Same, "the same, within ±10%"},
		"significant, small, no interval":     {"p50_ms", 1.05, 0, 0, 0.001, Inconclusive, "~ significant by the U test, but why not"},
		"significant, small, interval above":  {"p50_ms", 1.08, 1.12, 1.3, 0.01, Inconclusive, "interval lies beyond it"},
		"not significant, wide":               {"p50_ms", 1.2, 0.8, 1.6, 0.3, Inconclusive, "~ not significant at alpha 0.05"},
		"not significant, big ratio":          {"p50_ms", 3, 0.9, 5, 0.06, Inconclusive, "more seconds may tell"},
		"significant, no interval":            {"p50_ms", 2, 0, 0, 0.001, Inconclusive, "~ significant by the U test, but why not"},
		"not significant, no interval":        {"p50_ms", 1, 0, 0, 0.8, Inconclusive, "why not; more seconds may tell"},
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) {
			v := Verdict{Metric: u.metric, BaseMedian: 1, StepMedian: u.ratio, Ratio: u.ratio, P: u.p, NBase: 8, NStep: 8}
			if u.hi != 0 {
				v.CILow, v.CIHigh, v.Confidence = u.lo, u.hi, 0.95
			}
			decide(&v, Options{Metric: u.metric, BaseName: "the reference"}.WithDefaults(), "why not", false, "")
			if v.Outcome != u.want {
				t.Errorf("outcome %s, want %s (%s)", v.Outcome, u.want, v.Why)
			}
			if !strings.Contains(v.Why, u.why) {
				t.Errorf("why %q, want it to contain %q", v.Why, u.why)
			}
		})
	}
}

func TestWhyReads(t *testing.T) {
	v := Verdict{Metric: "p50_ms", BaseMedian: 0.712, StepMedian: 1.352, Ratio: 1.352 / 0.712,
		CILow: 1.81, CIHigh: 2.02, Confidence: 0.9502, P: 0.00016, NBase: 8, NStep: 8}
	decide(&v, Options{BaseName: "the reference"}.WithDefaults(), "", false, "")
	want := "p50 1.90x the reference (95% CI 1.81x-2.02x, p=0.000, n=8+8): regressed, beyond the 10% threshold"
	if v.Why != want {
		t.Errorf("Why:\n got %q\nwant %q", v.Why, want)
	}
	if got, want := v.String(), "0.712ms -> 1.352ms  1.90x [1.81x, 2.02x]  p=0.000 n=8+8  regressed"; got != want {
		t.Errorf("String:\n got %q\nwant %q", got, want)
	}
}

func TestStringForms(t *testing.T) {
	uu := map[string]struct {
		v    Verdict
		want string
	}{
		"throughput, no interval": {
			Verdict{Metric: "ops_per_s", BaseMedian: 5123.4, StepMedian: 2500, Ratio: 2500 / 5123.4, P: 0.003, NBase: 10, NStep: 12, Outcome: Inconclusive},
			"5123 ops/s -> 2500 ops/s  0.49x [no CI]  p=0.003 n=10+12  inconclusive",
		},
		"no ratio": {
			Verdict{Metric: "max_ms", P: 1, NBase: 3, NStep: 8, Outcome: Inconclusive},
			"0ms -> 0ms  ? [no CI]  p=1.000 n=3+8  inconclusive",
		},
		"large and small ratios": {
			Verdict{Metric: "p99_ms", BaseMedian: 0.1, StepMedian: 25, Ratio: 250, CILow: 12.34, CIHigh: 300, Confidence: 0.96, P: 0, NBase: 8, NStep: 8, Outcome: Regressed},
			"0.1ms -> 25ms  250x [12.3x, 300x]  p=0.000 n=8+8  regressed",
		},
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) {
			if got := u.v.String(); got != u.want {
				t.Errorf("\n got %q\nwant %q", got, u.want)
			}
		})
	}
}
