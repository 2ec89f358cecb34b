package verdict

import (
	"fmt"
	"strings"
	"time"

	"github.com/perfbisect/perfbisect/probe"
)

// metric is one per-second field of probe.Sample that a step can be judged on.
type metric struct {
	name          string
	label         string // short name in a Why: "p50", "ops/s"
	unit          string // after a value in String: "ms", " ops/s"
	higherIsWorse bool
	latency       bool // undefined in a second without operations
	get           func(probe.Sample) float64
}

var metrics = []metric{
	{"p50_ms", "p50", "ms", true, true, func(s probe.Sample) float64 { return s.P50Ms }},
	{"p95_ms", "p95", "ms", true, true, func(s probe.Sample) float64 { return s.P95Ms }},
	{"p99_ms", "p99", "ms", true, true, func(s probe.Sample) float64 { return s.P99Ms }},
	{"max_ms", "max", "ms", true, true, func(s probe.Sample) float64 { return s.MaxMs }},
	{"ops_per_s", "ops/s", " ops/s", false, false, func(s probe.Sample) float64 { return s.OpsPerS }},
	{"mib_per_s", "MiB/s", " MiB/s", false, false, func(s probe.Sample) float64 { return s.MiBPerS }},
}

// DefaultMetric is the metric of a zero Options.
const DefaultMetric = "p50_ms"

// Metrics lists the names Values accepts, in the order they are documented.
func Metrics() []string {
	names := make([]string, len(metrics))
	for i, m := range metrics {
		names[i] = m.name
	}
	return names
}

func lookup(name string) (metric, error) {
	for _, m := range metrics {
		if m.name == name {
			return m, nil
		}
	}
	return metric{}, fmt.Errorf("unknown metric %q (use one of %s)", name, strings.Join(Metrics(), ", "))
}

// HigherIsWorse reports whether a larger value of metric is a regression:
// true for the latencies, false for ops_per_s and mib_per_s. An unknown
// metric is treated as a latency.
func HigherIsWorse(metric string) bool {
	m, err := lookup(metric)
	return err != nil || m.higherIsWorse
}

// Values returns metric from each sample, in order. A latency of a second in
// which no operation completed (ops_per_s 0) is not a measurement — the probe
// reports it as 0, which would read as a very fast second — so for the
// latency metrics such seconds are left out; a stall shows in ops_per_s and
// in max_ms of the second that ends it.
func Values(samples []probe.Sample, metric string) ([]float64, error) {
	m, err := lookup(metric)
	if err != nil {
		return nil, err
	}
	vs := make([]float64, 0, len(samples))
	for _, s := range samples {
		if m.latency && s.OpsPerS == 0 {
			continue
		}
		vs = append(vs, m.get(s))
	}
	return vs, nil
}

// Trim drops the warm-up: samples with Sec <= warmup in seconds (each sample
// is one second, numbered from 1). It returns a new slice and leaves samples
// as they were.
func Trim(samples []probe.Sample, warmup time.Duration) []probe.Sample {
	limit := warmup.Seconds()
	kept := make([]probe.Sample, 0, len(samples))
	for _, s := range samples {
		if float64(s.Sec) > limit {
			kept = append(kept, s)
		}
	}
	return kept
}
