// Package series owns the arithmetic on a run's per-second values that every
// reader of a run shares: their median (the verdicts', the report's, an
// imported run's summary), and the cutting of a long run into fewer buckets,
// each drawn by its worst second, so that a one-second spike or stall stays
// visible in a chart narrower than the run (the live chart, the Markdown
// chart, the HTML chart).
//
// A value that is NaN is a second without a value (a gap): every function
// here passes over it.
package series

import (
	"math"
	"slices"
)

// Median is the median of the finite values, or 0 when there are none. It
// leaves values as they were.
func Median(values []float64) float64 {
	c := make([]float64, 0, len(values))
	for _, v := range values {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			c = append(c, v)
		}
	}
	if len(c) == 0 {
		return 0
	}
	slices.Sort(c)
	if n := len(c); n%2 == 0 {
		return (c[n/2-1] + c[n/2]) / 2
	}
	return c[len(c)/2]
}

// Reduce is which value stands for a bucket of seconds.
type Reduce int

// The reductions. The worst second of a bucket is its highest for a
// latency (a spike) and its lowest for a throughput (a stall): see Worst.
const (
	Mean Reduce = iota // the mean of the bucket's values
	Max                // the highest
	Min                // the lowest
)

// Worst is the reduction that keeps a bucket's worst second: Max when a
// higher value is worse (a latency), else Min (a throughput).
func Worst(higherIsWorse bool) Reduce {
	if higherIsWorse {
		return Max
	}
	return Min
}

// Bucket is the half-open range [lo, hi) of the positions of bucket i when
// span positions are cut into n buckets of (nearly) equal size, the larger
// ones last.
func Bucket(i, n, span int) (lo, hi int) { return i * span / n, (i + 1) * span / n }

// Index is the position in vals of the first value that red keeps (Max: the
// highest, Min: the lowest), or -1 when vals has none but NaN. Mean keeps no
// one value: -1.
func Index(vals []float64, red Reduce) int {
	if red == Mean {
		return -1
	}
	k := -1
	for i, v := range vals {
		if math.IsNaN(v) {
			continue
		}
		if k < 0 || red == Max && v > vals[k] || red == Min && v < vals[k] {
			k = i
		}
	}
	return k
}

// Fold is the value red keeps of vals; NaN when vals has none but NaN.
func Fold(vals []float64, red Reduce) float64 {
	if red != Mean {
		if i := Index(vals, red); i >= 0 {
			return vals[i]
		}
		return math.NaN()
	}
	sum, k := 0.0, 0
	for _, v := range vals {
		if !math.IsNaN(v) {
			sum += v
			k++
		}
	}
	if k == 0 {
		return math.NaN()
	}
	return sum / float64(k)
}

// Resample fills dst with len(dst) buckets of the first span positions of
// vals, each the Fold of its values by red, and returns it. Positions past
// the end of vals have no value, so a bucket wholly past it is NaN.
func Resample(dst, vals []float64, span int, red Reduce) []float64 {
	for i := range dst {
		lo, hi := Bucket(i, len(dst), span)
		hi = min(hi, len(vals))
		dst[i] = Fold(vals[min(lo, hi):hi], red)
	}
	return dst
}
