package verdict

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
)

func repeat(v float64, n int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = v
	}
	return xs
}

// spread is n values around v, ±1% apart, in a shuffled order.
func spread(v float64, n int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = v * (1 + 0.01*float64((i*7)%n-n/2))
	}
	return xs
}

// sameBits is slices.Equal that holds for NaN too.
func sameBits(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// Compare on constructed runs, through everything from the values to Why.
func TestCompare(t *testing.T) {
	uu := map[string]struct {
		base, step []float64
		opt        Options
		want       Outcome
		why        string // a part of Why
		noCI       bool
	}{
		"too few in step": {
			spread(1, 8), spread(1, 4), Options{}, Inconclusive, "need at least 5 seconds per side, have 8+4", true},
		"too few for a chosen minimum": {
			spread(1, 8), spread(1, 8), Options{MinSamples: 10}, Inconclusive, "need at least 10 seconds per side, have 8+8", true},
		"identical constants": {
			repeat(0.2, 8), repeat(0.2, 8), Options{}, Same, "p50 1.00x the baseline (95% CI 1.00x-1.00x, p=1.000, n=8+8): the same", false},
		"constant doubled": {
			repeat(0.2, 8), repeat(0.4, 8), Options{}, Regressed, "p50 2.00x", false},
		"spread doubled": {
			spread(0.2, 8), spread(0.4, 10), Options{BaseName: "the reference"}, Regressed, "2.00x the reference (95% CI 1.9", false},
		"spread tripled throughput": {
			spread(1000, 8), spread(3000, 8), Options{Metric: "ops_per_s"}, Improved, "ops/s 3.00x", false},
		"3% apart": {
			spread(0.2, 20), spread(0.206, 20), Options{}, Same, "1.03x", false},
		"stalls in the step": { // seconds at 0 ops/s are ratios of 0
			spread(1000, 8), append(spread(400, 5), 0, 0, 0), Options{Metric: "ops_per_s"}, Regressed, "ops/s 0.40x the baseline (95% CI 0.00x-0.41x", false},
		"a stall in the base": { // a ratio of +Inf, beyond the interval's top
			append(spread(500, 7), 0), spread(1000, 8), Options{Metric: "ops_per_s"}, Improved, "ops/s 2.0", false},
		"stalls in the base": {
			append(spread(500, 5), 0, 0, 0), spread(1000, 8), Options{Metric: "ops_per_s"}, Inconclusive,
			"no finite interval: the baseline has too many seconds at 0 ops/s", true},
		"stalls on both sides": {
			append(spread(1000, 7), 0), append(spread(300, 7), 0), Options{Metric: "ops_per_s"}, Inconclusive,
			"no interval: both runs have seconds at 0 ops/s", true},
		"base median 0": {
			append(spread(1000, 3), 0, 0, 0, 0, 0), spread(1000, 8), Options{Metric: "ops_per_s"}, Inconclusive,
			"the median of the baseline is 0, so a ratio means nothing", true},
		"a NaN": {
			append(spread(1, 7), math.NaN()), spread(1, 8), Options{}, Inconclusive, "the baseline has a value that is not a finite number (NaN)", true},
		"an infinity in step": {
			spread(1, 8), append(spread(1, 7), math.Inf(1)), Options{}, Inconclusive, "this step has a value that is not a finite number (+Inf)", true},
		"a negative value": {
			append(spread(1, 7), -1), spread(1, 8), Options{}, Inconclusive, "negative value (-1)", true},
		"unknown metric": {
			spread(1, 8), spread(2, 8), Options{Metric: "p90_ms"}, Inconclusive,
			`cannot judge: unknown metric "p90_ms" (use one of p50_ms, p95_ms, p99_ms, max_ms, avg_ms, ops_per_s, mib_per_s)`, true},
		"bad options": {
			spread(1, 8), spread(2, 8), Options{Threshold: 1.5, Alpha: -1}, Inconclusive,
			"cannot judge: threshold 1.5: want a fraction between 0 and 1, such as 0.10 for 10%; alpha -1:", true},
		"alpha too strict for n": {
			spread(1, 6), spread(3, 6), Options{Alpha: 0.001}, Inconclusive, "need >= 7 samples to detect a difference at alpha level 0.001", false},
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) {
			base, step := slices.Clone(u.base), slices.Clone(u.step)
			v := Compare(u.base, u.step, u.opt)
			if v.Outcome != u.want {
				t.Errorf("outcome %s, want %s: %s", v.Outcome, u.want, v.Why)
			}
			if !strings.Contains(v.Why, u.why) {
				t.Errorf("why %q, want it to contain %q", v.Why, u.why)
			}
			if v.HasCI() == u.noCI {
				t.Errorf("HasCI() = %v, want %v: %s", v.HasCI(), !u.noCI, v.Why)
			}
			if v.HasCI() && !(v.CILow <= v.CIHigh && v.Confidence >= 0.95) {
				t.Errorf("interval [%v, %v] at %v", v.CILow, v.CIHigh, v.Confidence)
			}
			if strings.Contains(v.Why, "\n") {
				t.Errorf("why has a line break: %q", v.Why)
			}
			if v.NBase != len(u.base) || v.NStep != len(u.step) {
				t.Errorf("n=%d+%d, want %d+%d", v.NBase, v.NStep, len(u.base), len(u.step))
			}
			if !sameBits(u.base, base) || !sameBits(u.step, step) {
				t.Error("Compare changed its arguments")
			}
			if _, err := json.Marshal(v); err != nil {
				t.Errorf("the verdict does not encode: %v", err)
			}
		})
	}
}

func TestCompareMedians(t *testing.T) {
	v := Compare([]float64{5, 1, 3, 2, 4}, []float64{10, 2, 6, 8, 4, 12}, Options{})
	if v.BaseMedian != 3 || v.StepMedian != 7 || v.Ratio != 7.0/3 {
		t.Errorf("medians %v -> %v ratio %v, want 3 -> 7 ratio 2.33", v.BaseMedian, v.StepMedian, v.Ratio)
	}
	if v.Metric != "p50_ms" {
		t.Errorf("metric %q, want the default p50_ms", v.Metric)
	}
}

func TestVerdictJSON(t *testing.T) {
	v := Compare(spread(0.2, 8), spread(0.4, 8), Options{})
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var back Verdict
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back != v {
		t.Errorf("round trip:\n got %+v\nwant %+v", back, v)
	}
	for _, key := range []string{`"metric":"p50_ms"`, `"ratio":2`, `"ci_low":`, `"outcome":"regressed"`, `"n_base":8`, `"why":"p50 2.00x`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("%s lacks %s", b, key)
		}
	}
}

func TestOptionsValidate(t *testing.T) {
	if err := (Options{}).Validate(); err != nil {
		t.Errorf("zero options: %v", err)
	}
	err := Options{Metric: "p90", Confidence: 1, MinSamples: -2}.Validate()
	if err == nil {
		t.Fatal("bad options accepted")
	}
	for _, part := range []string{`unknown metric "p90"`, "confidence 1:", "min samples -2:"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("%q lacks %q", err, part)
		}
	}
}

// Stalls in the baseline are not cured by more seconds of the step, so the
// verdict must not promise that they are.
func TestNoFalsePromise(t *testing.T) {
	base := append(spread(500, 5), 0, 0, 0)
	v := Compare(base, spread(1000, 8), Options{Metric: "ops_per_s"})
	if strings.Contains(v.Why, "more seconds") {
		t.Errorf("why %q promises more seconds will help", v.Why)
	}
	v = Compare(spread(1, 8), spread(1.3, 8), Options{Metric: "ops_per_s", Confidence: 0.9999})
	if v.HasCI() || !strings.HasSuffix(v.Why, "more seconds may tell") {
		t.Errorf("8+8 at 99.99%%: %s", v.Why)
	}
}
