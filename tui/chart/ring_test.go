package chart

import (
	"math"
	"slices"
	"testing"

	"github.com/perfbisect/perfbisect/probe"
)

// sample is second sec of a run whose values say which second they are.
func sample(sec int) probe.Sample {
	f := float64(sec)
	return probe.Sample{Sec: sec, OpsPerS: 100 * f, MiBPerS: f / 4, P50Ms: f, P95Ms: 2 * f, P99Ms: 3 * f, MaxMs: 4 * f}
}

// ringOf is a ring of capacity c with the seconds secs pushed in order.
func ringOf(c int, secs ...int) *Ring {
	r := NewRing(c)
	for _, s := range secs {
		r.Push(sample(s))
	}
	return r
}

// upTo is 1, 2, …, n.
func upTo(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

// p50s is the P50 (the second itself) of each of secs.
func p50s(secs ...int) []float64 {
	out := []float64{}
	for _, s := range secs {
		out = append(out, float64(s))
	}
	return out
}

func TestRingTail(t *testing.T) {
	uu := map[string]struct {
		capacity int
		pushed   int // seconds 1..pushed
		n        int
		want     []float64
		wantLen  int
	}{
		"empty":                {capacity: 4, pushed: 0, n: 3, want: p50s()},
		"partly filled":        {capacity: 4, pushed: 2, n: 2, want: p50s(1, 2), wantLen: 2},
		"fewer than kept":      {capacity: 4, pushed: 3, n: 2, want: p50s(2, 3), wantLen: 3},
		"exactly full":         {capacity: 4, pushed: 4, n: 4, want: p50s(1, 2, 3, 4), wantLen: 4},
		"wrapped":              {capacity: 4, pushed: 6, n: 4, want: p50s(3, 4, 5, 6), wantLen: 4},
		"wrapped many times":   {capacity: 3, pushed: 3*5 + 1, n: 3, want: p50s(14, 15, 16), wantLen: 3},
		"wrapped, short tail":  {capacity: 4, pushed: 7, n: 2, want: p50s(6, 7), wantLen: 4},
		"more than Len":        {capacity: 4, pushed: 2, n: 10, want: p50s(1, 2), wantLen: 2},
		"more than capacity":   {capacity: 4, pushed: 9, n: 100, want: p50s(6, 7, 8, 9), wantLen: 4},
		"zero n":               {capacity: 4, pushed: 3, n: 0, want: p50s(), wantLen: 3},
		"negative n":           {capacity: 4, pushed: 3, n: -5, want: p50s(), wantLen: 3},
		"capacity one":         {capacity: 1, pushed: 5, n: 3, want: p50s(5), wantLen: 1},
		"zero capacity":        {capacity: 0, pushed: 5, n: 3, want: p50s()},
		"negative capacity":    {capacity: -3, pushed: 5, n: 3, want: p50s()},
		"zero capacity, empty": {capacity: 0, pushed: 0, n: 0, want: p50s()},
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) {
			r := ringOf(u.capacity, upTo(u.pushed)...)
			if got := r.Len(); got != u.wantLen {
				t.Errorf("Len = %d, want %d", got, u.wantLen)
			}
			if got := r.Tail(nil, probe.FieldP50, u.n); !slices.Equal(got, u.want) {
				t.Errorf("Tail(nil, p50_ms, %d) = %v, want %v", u.n, got, u.want)
			}
			// Into a dst with room and stale contents: overwritten, same array.
			dst := make([]float64, 7, 16)
			got := r.Tail(dst, probe.FieldP50, u.n)
			if !slices.Equal(got, u.want) || (len(got) > 0 && &got[0] != &dst[0]) {
				t.Errorf("Tail(dst, p50_ms, %d) = %v (same array: %v), want %v in dst", u.n, got, len(got) > 0 && &got[0] == &dst[0], u.want)
			}
			last, ok := r.Last()
			if wantOK := u.wantLen > 0; ok != wantOK || (ok && last != sample(u.pushed)) {
				t.Errorf("Last = %+v, %v; want second %d, %v", last, ok, u.pushed, wantOK)
			}
		})
	}
}

func TestRingMetrics(t *testing.T) {
	r := ringOf(3, 1, 2, 3, 4)
	uu := map[probe.Field][]float64{
		probe.FieldOps: {200, 300, 400},
		probe.FieldMiB: {0.5, 0.75, 1},
		probe.FieldP50: {2, 3, 4},
		probe.FieldP95: {4, 6, 8},
		probe.FieldP99: {6, 9, 12},
		probe.FieldMax: {8, 12, 16},
	}
	for m, want := range uu {
		if got := r.Tail(nil, m, 3); !slices.Equal(got, want) {
			t.Errorf("Tail(%v) = %v, want %v", m, got, want)
		}
	}
}

func TestRingZeroValue(t *testing.T) {
	var r Ring
	r.Push(sample(1))
	if r.Len() != 0 || r.Cap() != 0 {
		t.Errorf("zero Ring: Len %d Cap %d after a push, want 0 0", r.Len(), r.Cap())
	}
	if got := r.Tail(nil, probe.FieldP99, 5); len(got) != 0 {
		t.Errorf("zero Ring: Tail = %v", got)
	}
	if got := r.Range(nil, probe.FieldP99, 1, 5); len(got) != 0 {
		t.Errorf("zero Ring: Range = %v", got)
	}
	if _, ok := r.Last(); ok {
		t.Error("zero Ring: Last says it has a sample")
	}
	if got := r.WindowStart(60); got != 1 {
		t.Errorf("zero Ring: WindowStart = %d, want 1", got)
	}
	if c := r.Clone(); c.Len() != 0 {
		t.Errorf("zero Ring: Clone has %d samples", c.Len())
	}
	r.Reset()
}

func TestRingReset(t *testing.T) {
	r := ringOf(3, 1, 2, 3, 4, 5)
	r.Reset()
	if r.Len() != 0 || r.Cap() != 3 {
		t.Fatalf("after Reset: Len %d Cap %d, want 0 3", r.Len(), r.Cap())
	}
	if _, ok := r.Last(); ok {
		t.Error("after Reset: Last says it has a sample")
	}
	r.Push(sample(1))
	r.Push(sample(2))
	if got, want := r.Tail(nil, probe.FieldP50, 5), p50s(1, 2); !slices.Equal(got, want) {
		t.Errorf("pushed after Reset: Tail = %v, want %v", got, want)
	}
}

// nan marks a second without a sample in the wants of Range.
var nan = math.NaN()

func TestRingRange(t *testing.T) {
	uu := map[string]struct {
		r        *Ring
		from, n  int
		want     []float64
		wantNone bool
	}{
		"whole run":              {r: ringOf(10, 1, 2, 3), from: 1, n: 3, want: p50s(1, 2, 3)},
		"window past the newest": {r: ringOf(10, 1, 2, 3), from: 1, n: 60, want: p50s(1, 2, 3)},
		"middle":                 {r: ringOf(10, upTo(8)...), from: 3, n: 4, want: p50s(3, 4, 5, 6)},
		"gap is NaN":             {r: ringOf(10, 1, 2, 4, 5), from: 1, n: 5, want: []float64{1, 2, nan, 4, 5}},
		"before the oldest":      {r: ringOf(3, upTo(6)...), from: 2, n: 5, want: []float64{nan, nan, 4, 5, 6}},
		"wrapped":                {r: ringOf(4, upTo(11)...), from: 9, n: 2, want: p50s(9, 10)},
		"wrapped, to the newest": {r: ringOf(4, upTo(11)...), from: 8, n: 100, want: p50s(8, 9, 10, 11)},
		"after the newest":       {r: ringOf(4, 1, 2, 3), from: 4, n: 10, wantNone: true},
		"zero n":                 {r: ringOf(4, 1, 2, 3), from: 1, n: 0, wantNone: true},
		"negative n":             {r: ringOf(4, 1, 2, 3), from: 1, n: -1, wantNone: true},
		"empty ring":             {r: NewRing(4), from: 1, n: 10, wantNone: true},
		"zero capacity":          {r: NewRing(0), from: 1, n: 10, wantNone: true},
		"out of order, no panic": {r: ringOf(10, 1, 2, 3, 2, 5), from: 1, n: 5, want: []float64{1, 2, 3, nan, 5}},
		"far from":               {r: ringOf(4, 1, 2), from: math.MinInt, n: 3, want: []float64{nan, nan, nan}},
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) {
			got := u.r.Range(make([]float64, 3, 8), probe.FieldP50, u.from, u.n)
			if u.wantNone {
				if len(got) != 0 {
					t.Errorf("Range(%d, %d) = %v, want nothing", u.from, u.n, got)
				}
				return
			}
			if !slices.EqualFunc(got, u.want, func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }) {
				t.Errorf("Range(%d, %d) = %v, want %v", u.from, u.n, got, u.want)
			}
		})
	}
}

func TestRingWindowStart(t *testing.T) {
	uu := map[string]struct {
		r      *Ring
		window int
		want   int
	}{
		"empty":                {r: NewRing(5), window: 60, want: 1},
		"younger than window":  {r: ringOf(600, upTo(10)...), window: 60, want: 1},
		"as old as the window": {r: ringOf(600, upTo(60)...), window: 60, want: 1},
		"older":                {r: ringOf(600, upTo(200)...), window: 60, want: 141},
		"zero window":          {r: ringOf(600, upTo(200)...), window: 0, want: 200},
	}
	for name, u := range uu {
		if got := u.r.WindowStart(u.window); got != u.want {
			t.Errorf("%s: WindowStart(%d) = %d, want %d", name, u.window, got, u.want)
		}
	}
}

func TestRingClone(t *testing.T) {
	r := ringOf(4, upTo(6)...) // wrapped: 3 4 5 6
	c := r.Clone()
	r.Push(sample(7))
	r.Push(sample(8))
	if got, want := c.Tail(nil, probe.FieldP50, 10), p50s(3, 4, 5, 6); !slices.Equal(got, want) {
		t.Errorf("clone after pushes to the original: %v, want %v", got, want)
	}
	if c.Cap() != 4 {
		t.Errorf("clone Cap = %d, want 4", c.Cap())
	}
	c.Push(sample(7))
	if got, want := c.Tail(nil, probe.FieldP50, 10), p50s(4, 5, 6, 7); !slices.Equal(got, want) {
		t.Errorf("clone after its own push: %v, want %v", got, want)
	}
	if got, want := r.Tail(nil, probe.FieldP50, 10), p50s(5, 6, 7, 8); !slices.Equal(got, want) {
		t.Errorf("original after pushes: %v, want %v", got, want)
	}
}

// A frame must not allocate to feed a chart: Push never, Tail and Range not
// when dst has room.
func TestRingNoAlloc(t *testing.T) {
	r := NewRing(600)
	dst := make([]float64, 0, 600)
	sec := 0
	if a := testing.AllocsPerRun(1000, func() { sec++; r.Push(sample(sec)) }); a != 0 {
		t.Errorf("Push: %v allocs, want 0", a)
	}
	if a := testing.AllocsPerRun(100, func() { dst = r.Tail(dst, probe.FieldP99, 600) }); a != 0 {
		t.Errorf("Tail: %v allocs, want 0", a)
	}
	if a := testing.AllocsPerRun(100, func() { dst = r.Range(dst, probe.FieldP99, r.WindowStart(600), 600) }); a != 0 {
		t.Errorf("Range: %v allocs, want 0", a)
	}
}
