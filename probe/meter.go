package probe

import (
	"math"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Latencies are kept in nanoseconds to three significant digits, from 1 ns to
// 10 minutes; a slower operation is recorded as 10 minutes (the exact max is
// kept apart). One histogram is about 250 KB whatever the number of operations.
const (
	histLowest  = 1
	histHighest = int64(10 * time.Minute)
	histDigits  = 3
)

func newHist() *hdrhistogram.Histogram { return hdrhistogram.New(histLowest, histHighest, histDigits) }

// Recorder takes the latency of each operation of one writer. Record is the
// only call on the writer's hot path: an uncontended lock, a histogram
// increment, no allocation.
type Recorder struct {
	mu     sync.Mutex
	cur    *hdrhistogram.Histogram
	spare  *hdrhistogram.Histogram // owned by the Meter between cuts
	max    int64
	bytes  int64
	errors int64
}

// Record counts one operation of n bytes that took d.
func (r *Recorder) Record(d time.Duration, n int) {
	v := int64(d)
	r.mu.Lock()
	if v > r.max {
		r.max = v
	}
	if v > histHighest {
		v = histHighest
	} else if v < histLowest {
		v = histLowest
	}
	_ = r.cur.RecordValue(v) // cannot fail: v is clamped to the range
	r.bytes += int64(n)
	r.mu.Unlock()
}

// Error counts one failed operation.
func (r *Recorder) Error() {
	r.mu.Lock()
	r.errors++
	r.mu.Unlock()
}

// Meter turns the recorders of a run into one Sample per Cut and a Summary
// over the whole run. Its memory does not grow with the run: each cut merges
// the second into a running total and resets the second's histograms. The
// caller supplies the clock, so tests can drive it second by second.
type Meter struct {
	recs   []*Recorder
	second *hdrhistogram.Histogram
	total  *hdrhistogram.Histogram
	start  time.Time
	last   time.Time
	sec    int
	max    int64
	bytes  int64
	errors int64
}

// NewMeter starts a meter at start with one recorder per writer.
func NewMeter(writers int, start time.Time) *Meter {
	m := &Meter{second: newHist(), total: newHist(), start: start, last: start}
	for range writers {
		m.recs = append(m.recs, &Recorder{cur: newHist(), spare: newHist()})
	}
	return m
}

// Recorder returns writer i's recorder.
func (m *Meter) Recorder(i int) *Recorder { return m.recs[i] }

// Cut closes the interval that began at the previous cut and returns it as a
// Sample; rates are per second of the interval's real length.
func (m *Meter) Cut(now time.Time) Sample {
	m.second.Reset()
	var maxNs, bytes, errors int64
	for _, r := range m.recs {
		r.mu.Lock()
		r.cur, r.spare = r.spare, r.cur
		maxNs = max(maxNs, r.max)
		bytes += r.bytes
		errors += r.errors
		r.max, r.bytes, r.errors = 0, 0, 0
		r.mu.Unlock()
		m.second.Merge(r.spare)
		r.spare.Reset()
	}
	m.total.Merge(m.second)
	m.max = max(m.max, maxNs)
	m.bytes += bytes
	m.errors += errors
	m.sec++

	elapsed := now.Sub(m.last).Seconds()
	m.last = now
	ops := m.second.TotalCount()
	return Sample{
		Sec:     m.sec,
		OpsPerS: round(perSecond(float64(ops), elapsed), 2),
		MiBPerS: round(perSecond(float64(bytes)/float64(MiB), elapsed), 3),
		P50Ms:   quantileMs(m.second, 50, maxNs),
		P95Ms:   quantileMs(m.second, 95, maxNs),
		P99Ms:   quantileMs(m.second, 99, maxNs),
		MaxMs:   ms(maxNs),
		Errors:  errors,
	}
}

// Summary describes everything cut so far, up to the last Cut.
func (m *Meter) Summary() Summary {
	d := m.last.Sub(m.start).Seconds()
	ops := m.total.TotalCount()
	return Summary{
		DurationS: round(d, 3),
		Ops:       ops,
		OpsPerS:   round(perSecond(float64(ops), d), 2),
		MiBPerS:   round(perSecond(float64(m.bytes)/float64(MiB), d), 3),
		P50Ms:     quantileMs(m.total, 50, m.max),
		P95Ms:     quantileMs(m.total, 95, m.max),
		P99Ms:     quantileMs(m.total, 99, m.max),
		MaxMs:     ms(m.max),
		Errors:    m.errors,
	}
}

// quantileMs reads a percentile, capped at the exact maximum: the histogram
// answers with the top of a bucket, up to 0.1% above what was recorded.
func quantileMs(h *hdrhistogram.Histogram, q float64, maxNs int64) float64 {
	if h.TotalCount() == 0 {
		return 0
	}
	return ms(min(h.ValueAtQuantile(q), maxNs))
}

// ms converts nanoseconds to milliseconds, kept to 0.1 µs.
func ms(ns int64) float64 { return round(float64(ns)/1e6, 4) }

func perSecond(n, seconds float64) float64 {
	if seconds <= 0 {
		return 0
	}
	return n / seconds
}

func round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}
