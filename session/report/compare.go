package report

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/session/verdict"
)

// Comparison writes two runs side by side as the seeds' multiplier table
// (`perfbisect compare`, benchstat-like): a row per metric both runs
// measured, with each median and its spread, the ratio B/A ("~" when the
// verdict stands by no change), the p-value, the seconds and the outcome
// at threshold. It returns how many rows it wrote: none means the runs
// have no metric in common.
func Comparison(w io.Writer, nameA, nameB string, a, b []probe.Sample, threshold float64) (rows int, err error) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "metric\tA: %s\t\tB: %s\t\tB/A\t\t\t\n", nameA, nameB)
	for _, m := range verdict.Metrics() {
		va, errA := verdict.Values(a, m)
		vb, errB := verdict.Values(b, m)
		if errA != nil || errB != nil || len(va) == 0 || len(vb) == 0 {
			continue
		}
		v := verdict.Compare(va, vb, verdict.Options{Metric: m, Threshold: threshold})
		rows++
		ratio := fmt.Sprintf("%.2fx", v.Ratio)
		if v.Outcome == verdict.Same || v.Outcome == verdict.Inconclusive {
			ratio = "~"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\tp=%.3f\tn=%d+%d\t%s\t\n", m,
			MetricText(m, v.BaseMedian), verdict.Spread(va), MetricText(m, v.StepMedian), verdict.Spread(vb),
			ratio, v.P, v.NBase, v.NStep, v.Outcome)
	}
	return rows, tw.Flush()
}
