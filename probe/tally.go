package probe

import (
	"math"

	"github.com/perfbisect/perfbisect/internal/series"
)

// Tally adds up a run's per-second samples, as they arrive, into what they
// say of the whole run: the one summary-from-samples, for a tool's live run
// (whose own final report gives the latencies) and for `perfbisect import`
// of a file without a summary. Each field is taken only from the seconds
// that really measured it. The zero Tally is empty and ready to use.
type Tally struct {
	n          int
	ops, mib   float64
	nOps, nMiB int
	errors     int64
	real       Fields
	// latOps and latSum weigh the seconds' mean latencies by their
	// operations; avgSum and nAvg count each second alike.
	latOps, latSum, avgSum float64
	nAvg                   int
	max                    float64
	// The seconds' percentiles (of pctFields), for their medians.
	pct [3][]float64
}

var pctFields = [3]Field{FieldP50, FieldP95, FieldP99}

// Add counts one second.
func (t *Tally) Add(s Sample) {
	t.n++
	ops, hasOps := s.Get(FieldOps)
	if hasOps {
		t.ops += ops
		t.nOps++
	}
	if v, ok := s.Get(FieldMiB); ok {
		t.mib += v
		t.nMiB++
	}
	if _, ok := s.Get(FieldErrors); ok {
		t.errors += s.Errors
		t.real |= FieldErrors
	}
	if v, ok := s.Get(FieldAvg); ok {
		if hasOps {
			t.latOps += ops
			t.latSum += v * ops
		}
		t.avgSum += v
		t.nAvg++
	}
	if v, ok := s.Get(FieldMax); ok {
		t.max = math.Max(t.max, v)
		t.real |= FieldMax
	}
	for i, f := range pctFields {
		if v, ok := s.Get(f); ok {
			t.pct[i] = append(t.pct[i], v)
		}
	}
}

// Seconds is how many seconds were added.
func (t *Tally) Seconds() int { return t.n }

// Throughput is what the seconds did, without their latencies: how many
// there were, the operations, ops/s and MiB/s over the seconds that give
// them, and the errors. Real lists only what the seconds measured.
func (t *Tally) Throughput() Summary {
	s := Summary{DurationS: float64(t.n), Real: t.real & FieldErrors}
	if t.nOps > 0 {
		s.Ops = int64(math.Round(t.ops))
		s.OpsPerS = t.ops / float64(t.nOps)
		s.Real |= FieldOps
	}
	if t.nMiB > 0 {
		s.MiBPerS = t.mib / float64(t.nMiB)
		s.Real |= FieldMiB
	}
	s.Errors = t.errors
	return s
}

// Summary is Throughput with the latencies the seconds give: percentiles
// are the medians of the per-second values, the maximum the largest, and
// the mean latency the seconds' means weighted by their operations, which
// is the mean of every operation. The notes say where it could do no better.
func (t *Tally) Summary() (Summary, []string) {
	s := t.Throughput()
	s.Real |= t.real & FieldMax
	s.MaxMs = t.max
	var notes []string
	switch {
	case t.latOps > 0:
		s.AvgMs = t.latSum / t.latOps
		s.Real |= FieldAvg
	case t.nAvg > 0:
		s.AvgMs = t.avgSum / float64(t.nAvg)
		s.Real |= FieldAvg
		notes = append(notes, "the samples have no operation counts: the mean latency is the mean of the seconds' means, each second counted alike")
	}
	var med [3]float64
	for i, vs := range t.pct {
		if len(vs) > 0 {
			s.Real |= pctFields[i]
			med[i] = series.Median(vs)
		}
	}
	s.P50Ms, s.P95Ms, s.P99Ms = med[0], med[1], med[2]
	return s, notes
}
