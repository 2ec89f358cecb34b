package verdict

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/perfbisect/perfbisect/probe"
)

// metrics are the fields a step can be judged on, in the order they are
// documented: the latencies, then the throughputs, each in Sample's order,
// so the default (p50_ms) comes first. Errors are not among them: a count
// of failed operations is mostly 0, and a ratio of its medians says nothing.
var metrics = judged()

func judged() []probe.Field {
	var lat, rate []probe.Field
	for _, f := range probe.AllFields.List() {
		switch {
		case f.IsLatency():
			lat = append(lat, f)
		case !f.HigherIsWorse():
			rate = append(rate, f)
		}
	}
	return append(lat, rate...)
}

// latencyOrder is the order in which Pick looks for a latency a workload
// measured when it lacks the one asked for: the percentiles before the
// mean, since the verdict compares medians of percentiles as the seeds
// did; p95 first, the one sysbench gives by default, then the tail p99;
// max last, one operation a second being the noisiest thing to judge on.
var latencyOrder = []probe.Field{probe.FieldP95, probe.FieldP99, probe.FieldP50, probe.FieldAvg, probe.FieldMax}

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
// that is (another latency for a latency, else ops_per_s), with
// a sentence saying why. It returns metric unchanged (and why "") when
// nothing closer exists, so Values then finds no values.
func Pick(metric string, have probe.Fields) (string, string) {
	f, err := lookup(metric)
	if err != nil || have.Has(f) {
		return metric, ""
	}
	// A workload with no latency at all (a command that prints only its
	// operations) is judged on its throughput rather than on nothing.
	candidates := []probe.Field{probe.FieldOps}
	if f.IsLatency() {
		candidates = append(slices.Clip(latencyOrder), probe.FieldOps)
	}
	for _, c := range candidates {
		if have.Has(c) {
			return c.String(), fmt.Sprintf("judged on %s: the workload does not measure %s per second (it gives %s)", c, metric, strings.Join(have.Names(), ", "))
		}
	}
	return metric, ""
}

// DefaultMetric is the metric of a zero Options.
const DefaultMetric = "p50_ms"

// Metrics lists the names Values accepts, in the order they are documented.
func Metrics() []string {
	names := make([]string, len(metrics))
	for i, f := range metrics {
		names[i] = f.String()
	}
	return names
}

func lookup(name string) (probe.Field, error) {
	if f, ok := probe.FieldByName(name); ok && slices.Contains(metrics, f) {
		return f, nil
	}
	return 0, fmt.Errorf("unknown metric %q (use one of %s)", name, strings.Join(Metrics(), ", "))
}

// HigherIsWorse reports whether a larger value of metric is a regression:
// true for the latencies, false for ops_per_s and mib_per_s. An unknown
// metric is treated as a latency.
func HigherIsWorse(metric string) bool {
	f, err := lookup(metric)
	return err != nil || f.HigherIsWorse()
}

// Values returns metric from each sample that measured it, in order; a
// latency of a second without operations is not a measurement and is left
// out (see probe.Sample.Value).
func Values(samples []probe.Sample, metric string) ([]float64, error) {
	f, err := lookup(metric)
	if err != nil {
		return nil, err
	}
	vs := make([]float64, 0, len(samples))
	for _, s := range samples {
		if v, ok := s.Value(f); ok {
			vs = append(vs, v)
		}
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
