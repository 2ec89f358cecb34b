package chart

import (
	"math"

	"github.com/perfbisect/perfbisect/internal/series"
	"github.com/perfbisect/perfbisect/probe"
)

// A chart shows one field of probe.Sample; what the field is called (its
// Title), its unit and which way is worse are the fields' table's (probe).
// What is the chart's own: a value as it is drawn, and the order the `m`
// key visits the fields.

// Value is field f of s as a chart draws it: NaN, which a chart leaves
// blank, when s has no value for it — a field s did not measure (pgbench
// gives no p99), one that is not a field, or a latency of a second without
// operations (a stall shows in the throughput chart; a 0 ms here would look
// like the fastest second).
func Value(f probe.Field, s probe.Sample) float64 {
	v, ok := s.Value(f)
	if !ok {
		return math.NaN()
	}
	return v
}

// latencyCycle is what the latency chart shows as the operator presses `m`
// ("m cycles p50/p95/p99/max and MiB/s"). Starting from p99, the default,
// max (the worst of each second) and MiB/s come first and the two
// percentiles nearest to p99 last; avg, which pgbench gives alone, ends it.
var latencyCycle = []probe.Field{probe.FieldP99, probe.FieldMax, probe.FieldMiB, probe.FieldP50, probe.FieldP95, probe.FieldAvg}

// NextLatency is the field the latency chart shows after f when the
// operator presses `m`: p99 -> max -> MiB/s -> p50 -> p95 -> avg -> p99.
// Any field outside the cycle (ops/s, which has its own chart) goes to p99.
func NextLatency(f probe.Field) probe.Field {
	for i, c := range latencyCycle {
		if c == f {
			return latencyCycle[(i+1)%len(latencyCycle)]
		}
	}
	return latencyCycle[0]
}

// Measured is f when the samples measure it (have), else the next field of
// the latency cycle they do measure, so a workload that gives only an
// average latency is drawn with it; f when none is.
func Measured(f probe.Field, have probe.Fields) probe.Field {
	for c, i := f, 0; i <= len(latencyCycle); c, i = NextLatency(c), i+1 {
		if have.Has(c) {
			return c
		}
	}
	return f
}

// Worst is how a chart of f folds several seconds into one column, so that
// what the operator is looking for survives a long window: the worst second
// of each column, the highest of a latency (a spike), the lowest of a
// throughput (a stall).
func Worst(f probe.Field) series.Reduce { return series.Worst(f.HigherIsWorse()) }
