package chart

import (
	"math"
	"testing"

	"github.com/perfbisect/perfbisect/internal/series"
	"github.com/perfbisect/perfbisect/probe"
)

// TestField holds each field a chart shows to the title, value and
// reduction the chart's own Metric enum gave it before the fields' table.
func TestField(t *testing.T) {
	s := probe.Sample{Sec: 7, OpsPerS: 5120.5, MiBPerS: 20.002, P50Ms: 0.18, P95Ms: 0.31, P99Ms: 1.04, MaxMs: 12.3, AvgMs: 0.21, Errors: 2,
		Real: probe.ProbeFields | probe.FieldAvg}
	uu := map[probe.Field]struct {
		title  string
		value  float64
		reduce series.Reduce
	}{
		probe.FieldOps:    {"ops/s", 5120.5, series.Min},
		probe.FieldMiB:    {"MiB/s", 20.002, series.Min},
		probe.FieldP50:    {"p50 ms", 0.18, series.Max},
		probe.FieldP95:    {"p95 ms", 0.31, series.Max},
		probe.FieldP99:    {"p99 ms", 1.04, series.Max},
		probe.FieldMax:    {"max ms", 12.3, series.Max},
		probe.FieldAvg:    {"avg ms", 0.21, series.Max},
		probe.FieldErrors: {"errors", 2, series.Max},
	}
	for f, u := range uu {
		if got := f.Title(); got != u.title { // as the charts title it
			t.Errorf("Title(%v) = %q, want %q", f, got, u.title)
		}
		if got := Value(f, s); got != u.value {
			t.Errorf("Value(%v) = %v, want %v", f, got, u.value)
		}
		if got := Worst(f); got != u.reduce {
			t.Errorf("Worst(%v) = %v, want %v", f, got, u.reduce)
		}
	}
	for _, bad := range []probe.Field{0, probe.FieldOps | probe.FieldP99, probe.AllFields + 1} {
		if got := Value(bad, s); !math.IsNaN(got) {
			t.Errorf("Value(%v) = %v, want NaN", uint16(bad), got)
		}
	}
}

// A stalled second has a throughput of 0, and no latency: a gap in the
// latency chart, not a 0 ms that would look like the fastest second.
func TestValueStall(t *testing.T) {
	stall := probe.Sample{Sec: 3}
	if v := Value(probe.FieldOps, stall); v != 0 {
		t.Errorf("ops/s of a stall = %v, want 0", v)
	}
	for _, f := range []probe.Field{probe.FieldP50, probe.FieldP95, probe.FieldP99, probe.FieldMax} {
		if v := Value(f, stall); !math.IsNaN(v) {
			t.Errorf("%v of a stall = %v, want NaN (a gap)", f, v)
		}
	}
}

func TestNextLatency(t *testing.T) {
	// From the default, the `m` key visits each latency field and MiB/s
	// once, in the order the help promises, and comes back.
	want := []probe.Field{probe.FieldMax, probe.FieldMiB, probe.FieldP50, probe.FieldP95, probe.FieldAvg, probe.FieldP99}
	f := probe.FieldP99
	for i, w := range want {
		f = NextLatency(f)
		if f != w {
			t.Fatalf("press %d: %v, want %v", i+1, f, w)
		}
	}
	for _, from := range []probe.Field{probe.FieldOps, probe.FieldErrors, 0, 1 << 12} {
		if got := NextLatency(from); got != probe.FieldP99 {
			t.Errorf("NextLatency(%v) = %v, want p99_ms", uint16(from), got)
		}
	}
}

// A workload that measures fewer fields is drawn with what it measured:
// no value (a blank) for the others, and the latency chart moves to a
// latency it has.
func TestMeasured(t *testing.T) {
	pg := probe.Sample{Sec: 1, OpsPerS: 500, AvgMs: 2, P99Ms: 0, Real: probe.FieldOps | probe.FieldAvg}
	if v := Value(probe.FieldP99, pg); !math.IsNaN(v) {
		t.Errorf("p99 of a pgbench sample = %v, want NaN (not measured)", v)
	}
	if v := Value(probe.FieldAvg, pg); v != 2 {
		t.Errorf("avg of a pgbench sample = %v, want 2", v)
	}
	sb := probe.FieldOps | probe.FieldP95 | probe.FieldErrors
	uu := map[string]struct {
		from, want probe.Field
		have       probe.Fields
	}{
		"pgbench":               {probe.FieldP99, probe.FieldAvg, pg.Measured()},
		"sysbench":              {probe.FieldP99, probe.FieldP95, sb},
		"probe":                 {probe.FieldP99, probe.FieldP99, probe.ProbeFields},
		"ops only: unchanged":   {probe.FieldP99, probe.FieldP99, probe.FieldOps},
		"MiB/s, sysbench: next": {probe.FieldMiB, probe.FieldP95, sb},
		"avg, probe: round":     {probe.FieldAvg, probe.FieldP99, probe.ProbeFields},
	}
	for name, u := range uu {
		if got := Measured(u.from, u.have); got != u.want {
			t.Errorf("%s: Measured(%v, %v) = %v, want %v", name, u.from, u.have, got, u.want)
		}
	}
}
