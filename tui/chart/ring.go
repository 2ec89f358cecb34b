package chart

import (
	"math"

	"github.com/perfbisect/perfbisect/probe"
)

// Ring keeps the last samples of a run, oldest first, in memory fixed when it
// is made. It is meant for one goroutine (the TUI's model: Update pushes,
// View reads); it has no lock.
//
// The zero Ring, and a Ring made with a capacity below 1, keep nothing.
type Ring struct {
	buf   []probe.Sample
	start int // index in buf of the oldest sample
	n     int // samples kept
}

// NewRing returns a Ring that keeps the last capacity samples. A capacity
// below 1 gives a Ring that keeps nothing rather than one that panics.
func NewRing(capacity int) *Ring {
	return &Ring{buf: make([]probe.Sample, max(capacity, 0))}
}

// Push adds s as the newest sample, dropping the oldest when the ring is
// full. It never allocates. Samples are expected in the order of their Sec,
// as a run yields them; Range relies on it.
func (r *Ring) Push(s probe.Sample) {
	c := len(r.buf)
	if c == 0 {
		return
	}
	if r.n < c {
		r.buf[(r.start+r.n)%c] = s
		r.n++
		return
	}
	r.buf[r.start] = s
	r.start = (r.start + 1) % c
}

// Len is how many samples the ring holds.
func (r *Ring) Len() int { return r.n }

// Cap is how many samples the ring can hold.
func (r *Ring) Cap() int { return len(r.buf) }

// Reset forgets every sample and keeps the memory.
func (r *Ring) Reset() { r.start, r.n = 0, 0 }

// at is the i-th sample kept, 0 being the oldest.
func (r *Ring) at(i int) probe.Sample {
	return r.buf[(r.start+i)%len(r.buf)]
}

// Last returns the newest sample, and false when the ring is empty.
func (r *Ring) Last() (probe.Sample, bool) {
	if r.n == 0 {
		return probe.Sample{}, false
	}
	return r.at(r.n - 1), true
}

// Tail appends the values of f for the last n samples, oldest first, to
// dst[:0] and returns it. It allocates only when dst has too little room. An
// n larger than Len gives Len values; an n below 1 gives none.
func (r *Ring) Tail(dst []float64, f probe.Field, n int) []float64 {
	dst = dst[:0]
	n = min(max(n, 0), r.n)
	if n == 0 {
		return dst
	}
	// The kept samples are buf[start:] then buf[:start]; walk the last n
	// as at most two runs, without a modulo a sample.
	i := (r.start + r.n - n) % len(r.buf)
	for n > 0 {
		end := min(len(r.buf), i+n)
		for _, s := range r.buf[i:end] {
			dst = append(dst, Value(f, s))
		}
		n -= end - i
		i = 0
	}
	return dst
}

// Range puts the values of f at the run seconds from, from+1, …, from+n-1 in
// dst[:0] and returns it, so that runs of different lengths line up on the
// same x axis. A second the ring has no sample for (a gap in the run, or
// before its oldest sample) is NaN, which Render leaves blank. The result
// stops at the ring's newest sample: a run shorter than the window gives a
// shorter slice, which Render draws from the left. It allocates only when dst
// has too little room.
func (r *Ring) Range(dst []float64, f probe.Field, from, n int) []float64 {
	dst = dst[:0]
	last, ok := r.Last()
	if !ok || n <= 0 || last.Sec < from {
		return dst
	}
	size := n
	if d := last.Sec - from + 1; d > 0 && d < size { // d <= 0 only on overflow
		size = d
	}
	for range size {
		dst = append(dst, math.NaN())
	}
	// The first sample at or after from, by bisection over the ring.
	lo, hi := 0, r.n
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if r.at(mid).Sec < from {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	for i := lo; i < r.n; i++ {
		s := r.at(i)
		k := s.Sec - from
		if k >= size {
			break
		}
		if k >= 0 { // a sample out of order may be before from
			dst[k] = Value(f, s)
		}
	}
	return dst
}

// WindowStart is the first run second of a window of the given length that
// ends at the newest sample: the FirstSec of a Chart that follows the run.
// It is never below 1 (runs count seconds from 1), so a run younger than the
// window is drawn from the left of a window that starts at its first second.
func (r *Ring) WindowStart(window int) int {
	last, ok := r.Last()
	if !ok {
		return 1
	}
	return max(1, last.Sec-max(window, 1)+1)
}

// Clone returns a copy of the ring that later pushes to r do not change: what
// a frozen view draws from. It allocates the ring's capacity once.
func (r *Ring) Clone() *Ring {
	c := &Ring{buf: make([]probe.Sample, len(r.buf)), n: r.n}
	for i := range r.n {
		c.buf[i] = r.at(i)
	}
	return c
}
