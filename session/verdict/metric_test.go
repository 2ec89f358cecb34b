package verdict

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/probe"
)

func samples() []probe.Sample {
	return []probe.Sample{
		{Sec: 1, OpsPerS: 100, MiBPerS: 0.4, P50Ms: 9, P95Ms: 19, P99Ms: 29, MaxMs: 39},
		{Sec: 2, OpsPerS: 200, MiBPerS: 0.8, P50Ms: 5, P95Ms: 15, P99Ms: 25, MaxMs: 35},
		{Sec: 3, OpsPerS: 0}, // a stall: no operation ended, so no latency
		{Sec: 4, OpsPerS: 300, MiBPerS: 1.2, P50Ms: 4, P95Ms: 14, P99Ms: 24, MaxMs: 2034},
	}
}

func TestValues(t *testing.T) {
	uu := map[string]struct {
		want []float64
	}{
		"p50_ms":    {[]float64{9, 5, 4}},
		"p95_ms":    {[]float64{19, 15, 14}},
		"p99_ms":    {[]float64{29, 25, 24}},
		"max_ms":    {[]float64{39, 35, 2034}},
		"avg_ms":    {[]float64{}}, // the probe does not measure it
		"ops_per_s": {[]float64{100, 200, 0, 300}},
		"mib_per_s": {[]float64{0.4, 0.8, 0, 1.2}},
	}
	for metric, u := range uu {
		t.Run(metric, func(t *testing.T) {
			got, err := Values(samples(), metric)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, u.want) {
				t.Errorf("got %v, want %v", got, u.want)
			}
		})
	}
	if len(uu) != len(Metrics()) {
		t.Errorf("tested %d metrics of %d", len(uu), len(Metrics()))
	}
}

func TestValuesUnknownMetric(t *testing.T) {
	for _, metric := range []string{"", "p90_ms", "P50_MS", "errors"} {
		_, err := Values(samples(), metric)
		if err == nil {
			t.Fatalf("%q: no error", metric)
		}
		want := "(use one of p50_ms, p95_ms, p99_ms, max_ms, avg_ms, ops_per_s, mib_per_s)"
		if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), `"`+metric+`"`) {
			t.Errorf("%q: error %q, want the name and %q", metric, err, want)
		}
	}
}

func TestHigherIsWorse(t *testing.T) {
	uu := map[string]bool{
		"p50_ms": true, "p95_ms": true, "p99_ms": true, "max_ms": true, "avg_ms": true,
		"ops_per_s": false, "mib_per_s": false,
		"unknown": true, "errors": true,
	}
	for metric, want := range uu {
		if got := HigherIsWorse(metric); got != want {
			t.Errorf("HigherIsWorse(%q) = %v, want %v", metric, got, want)
		}
	}
}

func TestTrim(t *testing.T) {
	uu := map[string]struct {
		warmup time.Duration
		secs   []int
	}{
		"none":              {0, []int{1, 2, 3, 4}},
		"two seconds":       {2 * time.Second, []int{3, 4}},
		"part of a second":  {2500 * time.Millisecond, []int{3, 4}},
		"all of it":         {time.Minute, nil},
		"negative, as none": {-time.Second, []int{1, 2, 3, 4}},
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) {
			in := samples()
			got := Trim(in, u.warmup)
			var secs []int
			for _, s := range got {
				secs = append(secs, s.Sec)
			}
			if !slices.Equal(secs, u.secs) {
				t.Errorf("seconds %v, want %v", secs, u.secs)
			}
			if !slices.Equal(in, samples()) {
				t.Error("Trim changed its argument")
			}
		})
	}
}

// A tool's samples carry only the fields it gave: the others are left out
// of the values, and Pick judges on the nearest field measured.
func TestValuesOnlyMeasured(t *testing.T) {
	pg := []probe.Sample{
		{Sec: 1, OpsPerS: 500, AvgMs: 2.0, Real: probe.FieldOps | probe.FieldAvg},
		{Sec: 2, OpsPerS: 400, AvgMs: 2.5, Real: probe.FieldOps | probe.FieldAvg},
	}
	if got, _ := Values(pg, "p50_ms"); len(got) != 0 {
		t.Errorf("p50_ms of pgbench samples = %v, want none (pgbench gives no percentiles)", got)
	}
	if got, _ := Values(pg, "avg_ms"); !slices.Equal(got, []float64{2.0, 2.5}) {
		t.Errorf("avg_ms = %v, want [2 2.5]", got)
	}
	sb := []probe.Sample{{Sec: 1, OpsPerS: 90, P95Ms: 12, Real: probe.FieldOps | probe.FieldP95 | probe.FieldErrors}}
	cmd := []probe.Sample{{Sec: 1, OpsPerS: 7000, Real: probe.FieldOps}}
	uu := []struct {
		metric string
		runs   [][]probe.Sample
		want   string
		why    bool
	}{
		{"p50_ms", [][]probe.Sample{samples()}, "p50_ms", false},
		{"p50_ms", [][]probe.Sample{pg}, "avg_ms", true},
		{"p50_ms", [][]probe.Sample{sb}, "p95_ms", true},
		{"p99_ms", [][]probe.Sample{samples(), sb}, "p95_ms", true}, // a probe reference and a sysbench step
		{"p50_ms", [][]probe.Sample{pg, sb}, "ops_per_s", true},     // no latency in common: the throughput
		{"p99_ms", [][]probe.Sample{cmd}, "ops_per_s", true},        // a command that gives only its ops
		{"mib_per_s", [][]probe.Sample{pg}, "ops_per_s", true},
		{"ops_per_s", [][]probe.Sample{pg}, "ops_per_s", false},
	}
	for _, u := range uu {
		got, why := Pick(u.metric, Measured(u.runs...))
		if got != u.want || (why != "") != u.why {
			t.Errorf("Pick(%s, %v) = %q, %q; want %q (a reason: %v)", u.metric, Measured(u.runs...), got, why, u.want, u.why)
		}
		if u.why && !strings.Contains(why, u.metric) {
			t.Errorf("Pick(%s) reason %q does not name the metric asked for", u.metric, why)
		}
	}
}
