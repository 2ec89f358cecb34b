package report

import (
	"strings"
	"testing"

	"github.com/perfbisect/perfbisect/probe"
)

// TestComparison: a row for the metric both runs measured, none for the
// one only A has, and "~" where the runs are the same.
func TestComparison(t *testing.T) {
	var a, b, same []probe.Sample
	for i := range 10 {
		jitter := float64(i%3) - 1
		a = append(a, probe.Sample{Sec: i + 1, OpsPerS: 100 + jitter, P99Ms: 5, Real: probe.FieldOps | probe.FieldP99})
		b = append(b, probe.Sample{Sec: i + 1, OpsPerS: 200 + 2*jitter, Real: probe.FieldOps})
		same = append(same, probe.Sample{Sec: i + 1, OpsPerS: 100 - jitter, Real: probe.FieldOps})
	}
	var out strings.Builder
	rows, err := Comparison(&out, "a.jsonl", "b.jsonl", a, b, 0.10)
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if err != nil || rows != 1 || len(lines) != 2 {
		t.Fatalf("Comparison = %d rows, %v:\n%s", rows, err, out.String())
	}
	if f := strings.Fields(lines[0]); strings.Join(f, " ") != "metric A: a.jsonl B: b.jsonl B/A" {
		t.Errorf("header %q", lines[0])
	}
	if f := strings.Fields(lines[1]); len(f) != 9 || f[0] != "ops_per_s" || f[1] != "100.0" || f[3] != "200.0" || f[5] != "2.00x" || f[7] != "n=10+10" || f[8] != "improved" {
		t.Errorf("row %q", lines[1])
	}

	out.Reset()
	if rows, err := Comparison(&out, "a", "same", a, same, 0.10); rows != 1 || err != nil || !strings.Contains(out.String(), "  ~  ") {
		t.Errorf("the same run: %d rows, %v:\n%s", rows, err, out.String())
	}
	if rows, err := Comparison(&out, "p99 only", "ops only", []probe.Sample{{P99Ms: 1, Real: probe.FieldP99}}, b, 0.10); rows != 0 || err != nil {
		t.Errorf("no metric in common: %d rows, %v", rows, err)
	}
}
