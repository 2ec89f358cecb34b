package probe

import (
	"math"

	"github.com/perfbisect/perfbisect/internal/series"
)

// Totals adds up the throughput and errors of a run's per-second samples
// as they arrive, in memory that does not grow with the run: all a tool's
// live run needs, whose own final report gives the latencies. Each field is
// taken only from the seconds that really measured it. The zero Totals is
// empty and ready to use.
type Totals struct {
	n          int
	ops, mib   float64
	nOps, nMiB int
	errors     int64
	hasErrors  bool
}

// Add counts one second.
func (t *Totals) Add(s Sample) {
	t.n++
	if v, ok := s.Get(FieldOps); ok {
		t.ops += v
		t.nOps++
	}
	if v, ok := s.Get(FieldMiB); ok {
		t.mib += v
		t.nMiB++
	}
	if _, ok := s.Get(FieldErrors); ok {
		t.errors += s.Errors
		t.hasErrors = true
	}
}

// Seconds is how many seconds were added.
func (t *Totals) Seconds() int { return t.n }

// Throughput is what the seconds did, without their latencies: how many
// there were, the operations, ops/s and MiB/s over the seconds that give
// them (a second that did not count its operations is not a second of 0),
// and the errors. Real lists only what the seconds measured.
func (t *Totals) Throughput() Summary {
	s := Summary{DurationS: float64(t.n), Errors: t.errors}
	if t.hasErrors {
		s.Real |= FieldErrors
	}
	if t.nOps > 0 {
		s.Ops = int64(math.Round(t.ops))
		s.OpsPerS = t.ops / float64(t.nOps)
		s.Real |= FieldOps
	}
	if t.nMiB > 0 {
		s.MiBPerS = t.mib / float64(t.nMiB)
		s.Real |= FieldMiB
	}
	return s
}

// Tally is Totals with the seconds' latencies, for `perfbisect import` of a
// file without a summary: the one summary-from-samples. A latency is taken
// as Sample.Value gives it, so a stalled second's 0 ms weighs on the summary
// no more than on the verdicts. It keeps every second's percentiles for
// their medians, so it is for a file that is read whole anyway, not for a
// live run. The zero Tally is empty and ready to use.
type Tally struct {
	Totals
	// latOps and latSum weigh the seconds' mean latencies by their
	// operations; avgSum and nAvg count each second alike.
	latOps, latSum, avgSum float64
	nAvg                   int
	max                    float64
	hasMax                 bool
	// The seconds' percentiles (of pctFields), for their medians.
	pct [3][]float64
}

var pctFields = [3]Field{FieldP50, FieldP95, FieldP99}

// Add counts one second.
func (t *Tally) Add(s Sample) {
	t.Totals.Add(s)
	if v, ok := s.Value(FieldAvg); ok {
		if ops, ok := s.Get(FieldOps); ok {
			t.latOps += ops
			t.latSum += v * ops
		}
		t.avgSum += v
		t.nAvg++
	}
	if v, ok := s.Value(FieldMax); ok {
		t.max = math.Max(t.max, v)
		t.hasMax = true
	}
	for i, f := range pctFields {
		if v, ok := s.Value(f); ok {
			t.pct[i] = append(t.pct[i], v)
		}
	}
}

// Summary is Throughput with the latencies the seconds give: percentiles
// are the medians of the per-second values, the maximum the largest, and
// the mean latency the seconds' means weighted by their operations, which
// is the mean of every operation. The notes say where it could do no better.
func (t *Tally) Summary() (Summary, []string) {
	s := t.Throughput()
	if t.hasMax {
		s.MaxMs = t.max
		s.Real |= FieldMax
	}
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
