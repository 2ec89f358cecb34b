package verdict

import "golang.org/x/perf/benchmath"

// Spread is the 95% confidence interval of the median of values, as
// benchstat prints it beside a median: "±4%", "±∞" when too few values
// give no interval. values is not changed.
func Spread(values []float64) string {
	s := benchmath.AssumeNothing.Summary(benchmath.NewSample(append([]float64(nil), values...), &benchmath.DefaultThresholds), 0.95)
	return "±" + s.PctRangeString()
}
