package main

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfbisect/perfbisect/probe"
)

// importFile runs perfbisect import on file and decodes what it printed.
func importFile(t *testing.T, args ...string) ([]probe.Sample, *probe.Summary, string) {
	t.Helper()
	code, out, stderr := runCLI(t, context.Background(), append([]string{"import"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	ss, sum := decodeRun(t, out)
	if sum == nil {
		t.Fatalf("output without a summary:\n%s", out)
	}
	return ss, sum, stderr
}

func TestImportReadsRealToolOutput(t *testing.T) {
	const testdata = "../../probe/parse/testdata/"
	uu := map[string]struct {
		file    string
		samples int
		real    probe.Fields // of every sample
		sumReal probe.Fields
	}{
		"sysbench": {"sysbench-1.0.20-oltp_write_only.txt", 4, probe.FieldOps | probe.FieldP95 | probe.FieldErrors,
			probe.FieldOps | probe.FieldP95 | probe.FieldMax | probe.FieldAvg | probe.FieldErrors},
		"pgbench": {"pgbench-15-P1.txt", 5, probe.FieldOps | probe.FieldAvg | probe.FieldErrors,
			probe.FieldOps | probe.FieldAvg | probe.FieldErrors},
		"fio json+ status": {"fio-3.33-jsonplus-status.json", 3, probe.FieldOps | probe.FieldMiB | probe.FieldP50 | probe.FieldP95 | probe.FieldP99 | probe.FieldMax,
			probe.FieldOps | probe.FieldMiB | probe.FieldP50 | probe.FieldP95 | probe.FieldP99 | probe.FieldMax | probe.FieldAvg},
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) {
			ss, sum, _ := importFile(t, testdata+u.file)
			if len(ss) != u.samples || sum.Ops == 0 || sum.Real != u.sumReal {
				t.Errorf("%d samples, summary %+v with Real %v; want %d samples, Real %v", len(ss), sum, sum.Real, u.samples, u.sumReal)
			}
			for _, s := range ss {
				if s.Real != u.real {
					t.Errorf("sample %+v: Real %v, want %v", s, s.Real, u.real)
				}
			}
		})
	}
	if code, _, stderr := runCLI(t, context.Background(), "import", "main.go"); code != exitFailure || !strings.Contains(stderr, "not sysbench, pgbench or fio output") {
		t.Errorf("import of Go source: exit %d, %s", code, stderr)
	}
}

// Without the tool's summary, import computes one from the fields the
// samples really have: pgbench 14 gives no failures, so no errors.
func TestImportComputesASummary(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pgbench14.txt")
	progress := "progress: 1.0 s, 100.0 tps, lat 2.000 ms stddev 0.500\nprogress: 2.0 s, 300.0 tps, lat 1.000 ms stddev 0.400\nprogress: 3.0 s, 200.0 tps, lat 4.000 ms stddev 0.400\n"
	if err := os.WriteFile(file, []byte(progress), 0o644); err != nil {
		t.Fatal(err)
	}
	ss, sum, stderr := importFile(t, file)
	if len(ss) != 3 || !strings.Contains(stderr, "computed from 3 samples") {
		t.Fatalf("%d samples, stderr %q", len(ss), stderr)
	}
	// The mean of every transaction: seconds' means weighted by their count.
	avg := (100*2.0 + 300*1.0 + 200*4.0) / 600
	if sum.Ops != 600 || sum.OpsPerS != 200 || math.Abs(sum.AvgMs-avg) > 1e-9 || sum.Real != probe.FieldOps|probe.FieldAvg {
		t.Errorf("summary %+v, Real %v; want 600 ops, avg %.4f ms, Real ops and avg", sum, sum.Real, avg)
	}
}

func TestImportFioLatencyLog(t *testing.T) {
	ss, sum, stderr := importFile(t, "../../probe/parse/testdata/fio-3.33-etcd_lat.1.log")
	if len(ss) != 5 || ss[0].Real != probe.FieldAvg || ss[0].AvgMs != 0.006098 {
		t.Fatalf("samples %+v", ss)
	}
	// No operations to weigh the seconds' means by: each counts alike, and
	// import says so.
	avg := (0.006098 + 0.005896 + 0.042149 + 0.050569 + 0.048844) / 5
	if sum.Real != probe.FieldAvg || math.Abs(sum.AvgMs-avg) > 1e-12 || !strings.Contains(stderr, "each second counted alike") {
		t.Errorf("summary %+v, Real %v, stderr %q", sum, sum.Real, stderr)
	}
}

// compare reads saved tool output as it is: last night's sysbench log
// against tonight's gives the multiplier table on the fields sysbench
// measured, and nothing on those it did not.
func TestCompareSavedSysbenchOutput(t *testing.T) {
	const testdata = "../../probe/parse/testdata/"
	code, out, stderr := runCLI(t, context.Background(), "compare",
		testdata+"sysbench-1.0.20-oltp_insert-disk.txt", testdata+"sysbench-1.0.20-oltp_insert-nosync.txt")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows := map[string]string{}
	for _, l := range strings.Split(out, "\n")[1:] {
		if f := strings.Fields(l); len(f) > 0 {
			rows[f[0]] = l
		}
	}
	if len(rows) != 2 || !strings.HasSuffix(rows["p95_ms"], "improved") || !strings.HasSuffix(rows["ops_per_s"], "improved") {
		t.Errorf("want p95_ms and ops_per_s improved (syncs off), and no other row:\n%s", out)
	}
	if !strings.Contains(rows["ops_per_s"], "2.25x") {
		t.Errorf("ops_per_s: want the 2.25x of the real runs (4006 -> 9002 tps):\n%s", out)
	}
}
