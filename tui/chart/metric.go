package chart

import (
	"math"
	"strconv"

	"github.com/perfbisect/perfbisect/probe"
)

// Metric is the field of a probe.Sample that a chart shows.
type Metric int

// The metrics a chart can show. The zero Metric is OpsPerS.
const (
	OpsPerS Metric = iota // operations per second
	MiBPerS               // MiB written per second
	P50                   // median latency of the second, ms
	P95                   // 95th percentile latency, ms
	P99                   // 99th percentile latency, ms: the latency chart's default
	Max                   // slowest operation of the second, ms
	Avg                   // mean latency of the second, ms (pgbench gives only this)
)

// String is the metric's name with its unit, as a chart title or legend says
// it: "ops/s", "MiB/s", "p50 ms", "p95 ms", "p99 ms", "max ms".
func (m Metric) String() string {
	switch m {
	case OpsPerS:
		return "ops/s"
	case MiBPerS:
		return "MiB/s"
	case P50:
		return "p50 ms"
	case P95:
		return "p95 ms"
	case P99:
		return "p99 ms"
	case Max:
		return "max ms"
	case Avg:
		return "avg ms"
	}
	return "Metric(" + strconv.Itoa(int(m)) + ")"
}

// Field is the sample field m shows.
func (m Metric) Field() probe.Field {
	switch m {
	case OpsPerS:
		return probe.FieldOps
	case MiBPerS:
		return probe.FieldMiB
	case P50:
		return probe.FieldP50
	case P95:
		return probe.FieldP95
	case P99:
		return probe.FieldP99
	case Max:
		return probe.FieldMax
	case Avg:
		return probe.FieldAvg
	}
	return 0
}

// Value is the metric's value in s. A metric s did not measure (pgbench
// gives no p99) or an unknown one has no value: NaN, which a chart leaves
// blank.
func (m Metric) Value(s probe.Sample) float64 {
	v, ok := s.Get(m.Field())
	if !ok {
		return math.NaN()
	}
	return v
}

// Measured is m when the samples measure it (have), else the next metric
// of the latency cycle they do measure, so a workload that gives only an
// average latency is drawn with it; m when none is.
func (m Metric) Measured(have probe.Fields) Metric {
	for c, i := m, 0; i < 7; c, i = c.NextLatency(), i+1 {
		if have.Has(c.Field()) {
			return c
		}
	}
	return m
}

// NextLatency is the metric the latency chart shows after m when the
// operator presses `m` ("m cycles p50/p95/p99/max and MiB/s"): p99 -> max ->
// MiB/s -> p50 -> p95 -> avg -> p99. Starting from p99, the default, the two
// percentiles nearest to it come last. Any metric outside the cycle (ops/s,
// which has its own chart) goes to p99.
func (m Metric) NextLatency() Metric {
	switch m {
	case P99:
		return Max
	case Max:
		return MiBPerS
	case MiBPerS:
		return P50
	case P50:
		return P95
	case P95:
		return Avg
	}
	return P99
}

// Reduce is how a chart of m should fold several seconds into one column, so
// that what the operator is looking for survives a long window: the worst
// second of each column. For latency that is the highest value (a spike); for
// throughput the lowest (a stall).
func (m Metric) Reduce() Reduce {
	switch m {
	case OpsPerS, MiBPerS:
		return ReduceMin
	}
	return ReduceMax
}
