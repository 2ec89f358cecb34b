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
	field         probe.Field
}

var metrics = []metric{
	{"p50_ms", "p50", "ms", true, true, probe.FieldP50},
	{"p95_ms", "p95", "ms", true, true, probe.FieldP95},
	{"p99_ms", "p99", "ms", true, true, probe.FieldP99},
	{"max_ms", "max", "ms", true, true, probe.FieldMax},
	{"avg_ms", "avg", "ms", true, true, probe.FieldAvg},
	{"ops_per_s", "ops/s", " ops/s", false, false, probe.FieldOps},
	{"mib_per_s", "MiB/s", " MiB/s", false, false, probe.FieldMiB},
}

// latencyOrder is the order in which Pick looks for a latency a workload
// measured when it lacks the one asked for.
var latencyOrder = []string{"p95_ms", "p99_ms", "p50_ms", "avg_ms", "max_ms"}

// Measured is the set of fields every one of the samples measured.
func Measured(runs ...[]probe.Sample) probe.Fields {
	have := probe.Fields(^uint16(0))
	for _, run := range runs {
		for _, s := range run {
			have &= s.Measured()
		}
	}
	return have
}

// Pick returns the metric to judge on when the samples measured only the
// fields in have: metric itself when it is there, else the nearest kind
// that is (another latency for a latency, ops_per_s for a throughput), with
// a sentence saying why. It returns metric unchanged (and why "") when
// nothing closer exists, so Values then finds no values.
func Pick(metric string, have probe.Fields) (string, string) {
	m, err := lookup(metric)
	if err != nil || have.Has(m.field) {
		return metric, ""
	}
	candidates := []string{"ops_per_s"}
	if m.latency {
		candidates = latencyOrder
	}
	for _, c := range candidates {
		cm, _ := lookup(c)
		if have.Has(cm.field) {
			return c, fmt.Sprintf("judged on %s: the workload does not measure %s per second (it gives %s)", c, metric, strings.Join(have.Names(), ", "))
		}
	}
	return metric, ""
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

// Values returns metric from each sample that measured it, in order. A latency of a second in
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
		v, ok := s.Get(m.field)
		if !ok || m.latency && s.OpsPerS == 0 {
			continue
		}
		vs = append(vs, v)
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
