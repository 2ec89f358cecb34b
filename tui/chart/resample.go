package chart

import (
	"math"

	"github.com/perfbisect/perfbisect/internal/series"
)

// Values beyond these are drawn at the limit (or as zero), so that the scale
// and asciigraph's arithmetic stay finite whatever a caller passes.
const (
	maxAbs = 1e300
	minAbs = 1e-200
)

// clean is v clamped into what the chart can draw; NaN stays NaN (a gap).
func clean(v float64) float64 {
	switch {
	case v > maxAbs:
		return maxAbs
	case v < -maxAbs:
		return -maxAbs
	case v > -minAbs && v < minAbs:
		return 0
	}
	return v
}

// dataRange is the least and greatest value the window shows, and false
// when it shows none.
func dataRange(series []Series, window int) (lo, hi float64, some bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, s := range series {
		vals := s.Values[:min(len(s.Values), window)]
		for _, v := range vals {
			if math.IsNaN(v) {
				continue
			}
			v = clean(v)
			lo, hi = min(lo, v), max(hi, v)
			some = true
		}
	}
	return lo, hi, some
}

// resample fills dst, one value per plot position, from vals, whose first
// window values span the positions: each position shows the nearest second
// when there are fewer seconds than positions, and the reduction of its
// seconds when there are more. Positions past the end of vals are NaN, so a
// short series is drawn from the left. Values are kept within [lo, hi].
func resample(dst, vals []float64, red series.Reduce, window int, lo, hi float64) []float64 {
	n := len(dst)
	vals = vals[:min(len(vals), window)]
	if window > n {
		series.Resample(dst, vals, window, red)
	} else {
		for p := range dst {
			dst[p] = math.NaN()
			if i := nearest(p, n, window); i < len(vals) {
				dst[p] = vals[i]
			}
		}
	}
	for p, v := range dst {
		if !math.IsNaN(v) {
			dst[p] = min(max(clean(v), lo), hi)
		}
	}
	return dst
}

// nearest is the second shown at position p of n when window <= n seconds
// are spread over them; a single second is shown at position 0 only.
func nearest(p, n, window int) int {
	if window == 1 {
		if p == 0 {
			return 0
		}
		return math.MaxInt
	}
	return (2*p*(window-1) + n - 1) / (2 * (n - 1)) // round(p*(window-1)/(n-1))
}

// position is where second i of window is drawn among n positions: the
// inverse of what resample does.
func position(i, n, window int) int {
	switch {
	case window == 1:
		return 0
	case window <= n:
		return (2*i*(n-1) + window - 1) / (2 * (window - 1)) // round(i*(n-1)/(window-1))
	}
	return i * n / window
}
