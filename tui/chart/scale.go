package chart

import (
	"math"
	"strconv"
	"strings"
)

// scale is the y axis: rows steps of a round size from lo to hi, and how its
// labels are written.
type scale struct {
	lo, hi, step float64
	rows         int
	dec          int     // decimals of a label
	div          float64 // labels are value/div followed by suffix
	suffix       string
	sci          bool // labels in %g: the values are astronomical or tiny
	width        int  // every label is this wide
}

// mantissas are the round step sizes of a decade. Finer than 1-2-5, so that
// a chart of three or four rows still uses most of its height.
var mantissas = [...]float64{1, 1.5, 2, 2.5, 3, 4, 5, 6, 8}

// newScale fits rows (at least 1) round steps around [dmin, dmax] and zero.
func newScale(dmin, dmax float64, rows int) scale {
	rows = max(rows, 1)
	lo0, hi0 := min(0, dmin), max(0, dmax)
	if hi0-lo0 < minAbs {
		hi0 = lo0 + 1
	}
	raw := (hi0 - lo0) / float64(rows)
	e := int(math.Floor(math.Log10(raw)))
	mi := 0
	for mi < len(mantissas) && mantissas[mi]*math.Pow10(e) < raw*(1-1e-12) {
		mi++
	}
	s := scale{rows: rows, div: 1}
	fit := false
	for range 4 * len(mantissas) { // a few steps up fit but for odd cases; bounded
		if mi == len(mantissas) {
			mi, e = 0, e+1
		}
		s.step = mantissas[mi] * math.Pow10(e)
		s.lo = math.Floor(lo0/s.step+1e-9) * s.step
		s.hi = s.lo + float64(rows)*s.step
		if fit = s.hi >= hi0-1e-9*s.step; fit {
			break
		}
		mi++
	}
	if !fit {
		// One row across zero has no round step; label the data's own ends.
		s.lo, s.hi, s.step, s.sci = lo0, hi0, (hi0-lo0)/float64(rows), true
	}
	// Decimals a step needs: 10^e, and one more for 1.5 and 2.5.
	dec := -e
	if mi < len(mantissas) && mantissas[mi] != math.Trunc(mantissas[mi]) {
		dec++
	}
	a := max(math.Abs(s.lo), math.Abs(s.hi))
	switch {
	case s.sci:
	case a >= 1e18 || s.step < 1e-3:
		s.sci = true
	case a >= 1e4:
		k := 1 // thousands, then millions, …
		for k < 5 && a >= math.Pow10(3*(k+1)) {
			k++
		}
		s.div = math.Pow10(3 * k)
		s.suffix = "kMGTP"[k-1 : k]
		dec += 3 * k // decimals of step/div
	}
	s.dec = min(max(dec, 0), 4)
	s.width = 2 // asciigraph leaves no space before the axis after a 1-wide label
	for r := 0; r <= rows; r++ {
		s.width = max(s.width, len(s.format(s.hi-float64(r)*s.step)))
	}
	return s
}

// format writes v as a label, without padding.
func (s scale) format(v float64) string {
	if math.Abs(v) < s.step/2 {
		return "0" // not "-0.0" or "0.0k" from rounding
	}
	if s.sci {
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	return strconv.FormatFloat(v/s.div, 'f', s.dec, 64) + s.suffix
}

// label is format padded (or cut) to the scale's width: asciigraph's
// YAxisValueFormatter, so that the plot is as wide as planned.
func (s scale) label(v float64) string {
	l := s.format(v)
	if len(l) > s.width {
		return l[:s.width]
	}
	return strings.Repeat(" ", s.width-len(l)) + l
}

// tickSteps are the round intervals, in seconds, between x-axis labels.
var tickSteps = [...]int{1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600}

// xAxis is the x-axis line: run seconds under the plot, the first at the y
// axis (pad-1), the last under the last second, and round ones between where
// they fit. n is the number of plot positions, window the seconds they span.
func xAxis(width, pad, n, window, first int) string {
	last := first + window - 1
	line := []byte(strings.Repeat(" ", width))
	put := func(sec, col int) {
		l := strconv.Itoa(sec) + "s"
		start := min(col-len(l)/2, width-len(l))
		if start < 0 {
			return
		}
		for i := max(start-1, 0); i < min(start+len(l)+1, width); i++ {
			if line[i] != ' ' {
				return // a label needs a space either side
			}
		}
		copy(line[start:], l)
	}
	col := func(sec int) int { return pad - 1 + position(sec-first, n, window) }
	put(first, col(first))
	if window == 1 {
		return string(line)
	}
	put(last, col(last))
	// Round ticks at least a label and some air apart.
	gap := len(strconv.Itoa(max(abs(first), abs(last)))) + 7
	perSec := float64(n-1) / float64(window-1)
	if window > n {
		perSec = float64(n) / float64(window)
	}
	step := tickSteps[len(tickSteps)-1]
	for _, t := range tickSteps {
		if float64(t)*perSec >= float64(gap) {
			step = t
			break
		}
	}
	for float64(step)*perSec < float64(gap) {
		step *= 2
	}
	sec := first / step * step // the first round second after first
	if sec <= first {
		sec += step
	}
	for ; sec < last && sec > first; sec += step {
		put(sec, col(sec))
	}
	return string(line)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
