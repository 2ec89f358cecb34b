package chart

import (
	"math"
	"testing"

	"github.com/perfbisect/perfbisect/probe"
)

func TestMetric(t *testing.T) {
	s := probe.Sample{Sec: 7, OpsPerS: 5120.5, MiBPerS: 20.002, P50Ms: 0.18, P95Ms: 0.31, P99Ms: 1.04, MaxMs: 12.3, AvgMs: 0.21, Errors: 2,
		Real: probe.ProbeFields | probe.FieldAvg}
	uu := map[Metric]struct {
		name   string
		value  float64
		reduce Reduce
	}{
		OpsPerS: {"ops/s", 5120.5, ReduceMin},
		MiBPerS: {"MiB/s", 20.002, ReduceMin},
		P50:     {"p50 ms", 0.18, ReduceMax},
		P95:     {"p95 ms", 0.31, ReduceMax},
		P99:     {"p99 ms", 1.04, ReduceMax},
		Max:     {"max ms", 12.3, ReduceMax},
		Avg:     {"avg ms", 0.21, ReduceMax},
	}
	for m, u := range uu {
		if got := m.String(); got != u.name {
			t.Errorf("Metric(%d).String() = %q, want %q", int(m), got, u.name)
		}
		if got := m.Value(s); got != u.value {
			t.Errorf("%v.Value = %v, want %v", m, got, u.value)
		}
		if got := m.Reduce(); got != u.reduce {
			t.Errorf("%v.Reduce = %v, want %v", m, got, u.reduce)
		}
	}
	if OpsPerS != 0 {
		t.Error("the zero Metric is not ops/s")
	}
	for _, bad := range []Metric{-1, Avg + 1, 99} {
		if got := bad.Value(s); !math.IsNaN(got) {
			t.Errorf("%v.Value = %v, want NaN", bad, got)
		}
	}
	if got := Metric(9).String(); got != "Metric(9)" {
		t.Errorf("Metric(9).String() = %q", got)
	}
}

func TestMetricNextLatency(t *testing.T) {
	// From the default, the `m` key visits each latency metric and MiB/s
	// once, in the order the help promises, and comes back.
	want := []Metric{Max, MiBPerS, P50, P95, Avg, P99}
	m := P99
	for i, w := range want {
		m = m.NextLatency()
		if m != w {
			t.Fatalf("press %d: %v, want %v", i+1, m, w)
		}
	}
	for _, from := range []Metric{OpsPerS, -1, 42} {
		if got := from.NextLatency(); got != P99 {
			t.Errorf("%v.NextLatency() = %v, want p99 ms", from, got)
		}
	}
}

// A workload that measures fewer fields is drawn with what it measured:
// no value (a blank) for the others, and the latency chart moves to a
// latency it has.
func TestMetricMeasured(t *testing.T) {
	pg := probe.Sample{Sec: 1, OpsPerS: 500, AvgMs: 2, P99Ms: 0, Real: probe.FieldOps | probe.FieldAvg}
	if v := P99.Value(pg); !math.IsNaN(v) {
		t.Errorf("p99 of a pgbench sample = %v, want NaN (not measured)", v)
	}
	if v := Avg.Value(pg); v != 2 {
		t.Errorf("avg of a pgbench sample = %v, want 2", v)
	}
	if got := P99.Measured(pg.Measured()); got != Avg {
		t.Errorf("P99.Measured(pgbench) = %v, want avg ms", got)
	}
	sb := probe.FieldOps | probe.FieldP95 | probe.FieldErrors
	if got := P99.Measured(sb); got != P95 {
		t.Errorf("P99.Measured(sysbench) = %v, want p95 ms", got)
	}
	if got := P99.Measured(probe.ProbeFields); got != P99 {
		t.Errorf("P99.Measured(probe) = %v, want p99 ms", got)
	}
	if got := P99.Measured(probe.FieldOps); got != P99 {
		t.Errorf("P99.Measured(ops only) = %v, want p99 ms unchanged", got)
	}
}
