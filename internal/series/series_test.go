package series

import (
	"math"
	"slices"
	"testing"
)

var nan = math.NaN()

// same is slices.Equal with NaN equal to NaN: a gap where a gap is wanted.
func same(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) })
}

func TestMedian(t *testing.T) {
	uu := map[string]struct {
		in   []float64
		want float64
	}{
		"none":              {nil, 0},
		"one":               {[]float64{3}, 3},
		"odd, unsorted":     {[]float64{9, 1, 5}, 5},
		"even: the mean":    {[]float64{4, 1, 3, 2}, 2.5},
		"gaps passed over":  {[]float64{nan, 1, math.Inf(1), 7, math.Inf(-1), 4}, 4},
		"nothing but gaps":  {[]float64{nan, math.Inf(1)}, 0},
		"zeros are values":  {[]float64{0, 0, 5}, 0},
		"negative in order": {[]float64{-1, -3, -2}, -2},
	}
	for name, u := range uu {
		in := slices.Clone(u.in)
		if got := Median(in); got != u.want {
			t.Errorf("%s: Median(%v) = %v, want %v", name, u.in, got, u.want)
		}
		if !same(in, u.in) {
			t.Errorf("%s: Median reordered its argument: %v", name, in)
		}
	}
}

func TestWorst(t *testing.T) {
	if Worst(true) != Max || Worst(false) != Min {
		t.Errorf("Worst(latency) = %v, Worst(throughput) = %v; want Max, Min", Worst(true), Worst(false))
	}
}

func TestIndexFold(t *testing.T) {
	v := []float64{nan, 3, 1, 7, 1, 7, nan}
	uu := map[Reduce]struct {
		index int
		fold  float64
	}{
		Max:  {3, 7}, // the first of two highest
		Min:  {2, 1}, // the first of two lowest
		Mean: {-1, 19.0 / 5},
	}
	for red, u := range uu {
		if got := Index(v, red); got != u.index {
			t.Errorf("Index(%v) = %d, want %d", red, got, u.index)
		}
		if got := Fold(v, red); got != u.fold {
			t.Errorf("Fold(%v) = %v, want %v", red, got, u.fold)
		}
		for _, empty := range [][]float64{nil, {nan, nan}} {
			if got := Index(empty, red); got != -1 {
				t.Errorf("Index(%v, %v) = %d, want -1", empty, red, got)
			}
			if got := Fold(empty, red); !math.IsNaN(got) {
				t.Errorf("Fold(%v, %v) = %v, want NaN (a gap)", empty, red, got)
			}
		}
	}
}

func TestBucket(t *testing.T) {
	// Every position is in exactly one bucket, in order, for spans that
	// divide evenly and ones that do not.
	for _, span := range []int{1, 7, 60, 61, 599, 600, 601} {
		for _, n := range []int{1, 2, 7, 60, 300} {
			next := 0
			for i := range n {
				lo, hi := Bucket(i, n, span)
				if lo != next || hi < lo {
					t.Fatalf("Bucket(%d, %d, %d) = [%d, %d), want it to start at %d", i, n, span, lo, hi, next)
				}
				next = hi
			}
			if next != span {
				t.Errorf("%d buckets of %d end at %d", n, span, next)
			}
		}
	}
}

func TestResample(t *testing.T) {
	v := []float64{5, 9, 1, nan, nan, nan, 4, 2}
	uu := map[string]struct {
		n    int
		span int
		red  Reduce
		want []float64
	}{
		"spike survives":        {4, 8, Max, []float64{9, 1, nan, 4}},
		"stall survives":        {4, 8, Min, []float64{5, 1, nan, 2}},
		"mean":                  {2, 8, Mean, []float64{5, 3}},
		"span past the values":  {4, 16, Max, []float64{9, 4, nan, nan}},
		"span short of values":  {2, 4, Min, []float64{5, 1}},
		"one bucket of all":     {1, 8, Max, []float64{9}},
		"more buckets than any": {3, 2, Max, []float64{nan, 5, 9}},
	}
	for name, u := range uu {
		got := Resample(make([]float64, u.n), v, u.span, u.red)
		if !same(got, u.want) {
			t.Errorf("%s: %v, want %v", name, got, u.want)
		}
	}
}
