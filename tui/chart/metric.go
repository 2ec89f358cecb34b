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
	}
	return "Metric(" + strconv.Itoa(int(m)) + ")"
}

// Value is the metric's value in s. An unknown metric has no value: NaN,
// which a chart leaves blank.
func (m Metric) Value(s probe.Sample) float64 {
	switch m {
	case OpsPerS:
		return s.OpsPerS
	case MiBPerS:
		return s.MiBPerS
	case P50:
		return s.P50Ms
	case P95:
		return s.P95Ms
	case P99:
		return s.P99Ms
	case Max:
		return s.MaxMs
	}
	return math.NaN()
}

// NextLatency is the metric the latency chart shows after m when the
// operator presses `m` ("m cycles p50/p95/p99/max and MiB/s"): p99 -> max ->
// MiB/s -> p50 -> p95 -> p99. Starting from p99, the default, the two
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
