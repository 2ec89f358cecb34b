package verdict

import (
	"slices"
	"strings"
	"testing"

	"github.com/perfbisect/perfbisect/probe"
)

func TestFamily(t *testing.T) {
	uu := map[string]struct {
		primary string
		have    probe.Fields
		want    []string
	}{
		"the probe":              {"p50_ms", probe.ProbeFields, []string{"p50_ms", "ops_per_s", "p99_ms", "max_ms"}},
		"the probe, on p95":      {"p95_ms", probe.ProbeFields, []string{"p95_ms", "ops_per_s", "p50_ms", "p99_ms", "max_ms"}},
		"the probe, on ops/s":    {"ops_per_s", probe.ProbeFields, []string{"ops_per_s", "p50_ms", "p99_ms", "max_ms"}},
		"sysbench":               {"p95_ms", probe.FieldOps | probe.FieldP95 | probe.FieldErrors, []string{"p95_ms", "ops_per_s"}},
		"pgbench":                {"avg_ms", probe.FieldOps | probe.FieldAvg | probe.FieldErrors, []string{"avg_ms", "ops_per_s"}},
		"a command with MiB/s":   {"mib_per_s", probe.FieldMiB | probe.FieldAvg, []string{"mib_per_s", "avg_ms"}},
		"an unknown metric kept": {"iops", probe.FieldOps, []string{"iops", "ops_per_s"}},
	}
	for name, u := range uu {
		if got := Family(u.primary, u.have); !slices.Equal(got, u.want) {
			t.Errorf("%s: %v, want %v", name, got, u.want)
		}
	}
}

func TestFamilywise(t *testing.T) {
	o := Options{}.Familywise(4)
	if o.Alpha != 0.0125 || o.Confidence != 1-0.05/4 {
		t.Errorf("alpha %v, confidence %v; want 0.05/4 and 1-0.05/4", o.Alpha, o.Confidence)
	}
	if o := (Options{Alpha: 0.01}).Familywise(1); o.Alpha != 0.01 || o.Confidence != 0.95 {
		t.Errorf("one metric: %+v, want the options unchanged", o)
	}
}

func TestClearestAndAcross(t *testing.T) {
	p50 := Verdict{Metric: "p50_ms", BaseMedian: 1, Ratio: 0.99, Outcome: Same}
	ops := Verdict{Metric: "ops_per_s", BaseMedian: 1000, Ratio: 0.07, CILow: 0.06, CIHigh: 0.08, Outcome: Regressed}
	p99 := Verdict{Metric: "p99_ms", BaseMedian: 2, Ratio: 40, CILow: 30, CIHigh: 50, Outcome: Regressed}
	max := Verdict{Metric: "max_ms", BaseMedian: 3, Ratio: 1.4, Outcome: Inconclusive}
	if got := Clearest([]Verdict{p50, ops, p99, max}); got != 2 {
		t.Errorf("clearest %d, want p99 (its interval 30x from 1x, ops/s 12.5x)", got)
	}
	ops.CIHigh = 0.02 // now 50x from 1x
	if got := Clearest([]Verdict{p50, ops, p99, max}); got != 1 {
		t.Errorf("clearest %d, want ops/s", got)
	}
	p50r := p50
	p50r.Outcome, p50r.Ratio, p50r.CILow = Regressed, 1.2, 1.15
	if got := Clearest([]Verdict{p50r, ops, p99}); got != 0 {
		t.Errorf("clearest %d, want the first (the playbook's metric) when it regressed", got)
	}
	if got := Clearest([]Verdict{p50, max}); got != -1 {
		t.Errorf("clearest %d with none regressed", got)
	}
	want := "regressed on ops/s 0.07x, p99 40.0x; not on p50 0.99x (same), max 1.40x (inconclusive)"
	if got := Across([]Verdict{p50, ops, p99, max}); got != want {
		t.Errorf("across\n got %s\nwant %s", got, want)
	}
	if got := Across([]Verdict{{Metric: "p50_ms", Outcome: Inconclusive}}); !strings.HasPrefix(got, "not on p50 ? (inconclusive)") {
		t.Errorf("no ratio: %s", got)
	}
}
