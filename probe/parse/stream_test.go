package parse

import (
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/perfbisect/perfbisect/probe"
)

// feed gives in to a Stream line by line, and returns the samples each
// line returned, by line index.
func feed(t *testing.T, s *Stream, in string) map[int][]probe.Sample {
	t.Helper()
	got := map[int][]probe.Sample{}
	for i, l := range strings.Split(in, "\n") {
		if ss := s.Line(l); len(ss) > 0 {
			got[i] = ss
		}
	}
	return got
}

// A sample comes out of the line that completes it, not later: what a live
// reader needs.
func TestStreamGivesEachSampleAtItsLine(t *testing.T) {
	uu := map[string]struct {
		format, in string
		lines      []int // the lines (from 0) that give a sample
	}{
		"sysbench": {FormatSysbench, file(t, "sysbench-1.0.20-oltp_write_only.txt"), []int{12, 13, 14, 15}},
		"pgbench":  {FormatPgbench, file(t, "pgbench-15-P1.txt"), []int{2, 3, 4, 5, 6}},
		// A fio report is complete at its closing "}".
		"fio json": {FormatFioJSON, "fio: chatter\n" + fioReport(1000, 100) + fioReport(2000, 250), []int{14, 28}},
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) {
			s, err := NewStream(u.format)
			if err != nil {
				t.Fatal(err)
			}
			got := feed(t, s, u.in)
			var lines []int
			for i := range got {
				lines = append(lines, i)
			}
			if d := cmp.Diff(u.lines, lines, cmpopts.SortSlices(func(a, b int) bool { return a < b })); d != "" {
				t.Errorf("lines giving samples (-want +got):\n%s", d)
			}
			whole, err := Parse(strings.NewReader(u.in), u.format)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(whole, s.Result(), cmp.AllowUnexported(Result{})); d != "" {
				t.Errorf("the stream's result differs from Parse's (-parse +stream):\n%s", d)
			}
		})
	}
}

func TestStreamResultSoFar(t *testing.T) {
	lines := strings.Split(file(t, "sysbench-1.0.20-oltp_write_only.txt"), "\n")
	s, _ := NewStream(FormatSysbench)
	for _, l := range lines[:14] {
		s.Line(l)
	}
	mid := s.Result()
	if len(mid.Samples) != 2 || mid.Summary != nil || mid.Real != probe.FieldOps|probe.FieldP95|probe.FieldErrors {
		t.Fatalf("after 2 reports: %d samples, summary %v, Real %v", len(mid.Samples), mid.Summary, mid.Real)
	}
	for _, l := range lines[14:] {
		s.Line(l)
	}
	end := s.Result()
	if len(mid.Samples) != 2 || len(mid.Notes) != 0 {
		t.Errorf("reading on changed an earlier Result: %+v", mid)
	}
	if len(end.Samples) != 4 || end.Summary == nil || end.Summary.AvgMs != 0.56 {
		t.Errorf("at the end: %d samples, summary %+v", len(end.Samples), end.Summary)
	}
}

func TestNewStreamErrors(t *testing.T) {
	if _, err := NewStream("mysqlslap"); err == nil || !strings.Contains(err.Error(), "unknown format") {
		t.Errorf("unknown format: %v", err)
	}
	if _, err := NewStream(FormatCommand); err == nil || !strings.Contains(err.Error(), "NewCommandStream") {
		t.Errorf("command without a pattern: %v", err)
	}
}

// fio --output-format=json+ has each report's latency histogram: the
// difference of two is the second's, so samples get honest percentiles.
func TestFioJSONPlusHistograms(t *testing.T) {
	res, err := Parse(strings.NewReader(file(t, "fio-3.33-jsonplus-status.json")), "auto")
	if err != nil {
		t.Fatal(err)
	}
	lat := probe.FieldOps | probe.FieldMiB | probe.FieldP50 | probe.FieldP95 | probe.FieldP99 | probe.FieldMax
	// Values computed separately from the file's bins and totals.
	want := []probe.Sample{
		{Sec: 1, OpsPerS: 2674.182638105975, MiBPerS: 5.863215501305753, P50Ms: 0.005024, P95Ms: 0.008896, P99Ms: 0.013376, MaxMs: 0.054016, Real: lat},
		{Sec: 2, OpsPerS: 2217.2172172172172, MiBPerS: 4.863357162093735, P50Ms: 0.00688, P95Ms: 0.025984, P99Ms: 0.090624, MaxMs: 1.26976, Real: lat},
		{Sec: 3, OpsPerS: 2915, MiBPerS: 6.3961029052734375, P50Ms: 0.006368, P95Ms: 0.01312, P99Ms: 0.047872, MaxMs: 1.630208, Real: lat},
	}
	if d := cmp.Diff(want, res.Samples, cmpopts.EquateApprox(0, 1e-9)); d != "" {
		t.Errorf("samples (-want +got):\n%s", d)
	}
	// The final report, 0.1 s after the last status report, is the summary.
	if s := res.Summary; s == nil || s.DurationS != 3 || s.MaxMs != 1.632664 || !s.Real.Has(lat|probe.FieldAvg) {
		t.Errorf("summary %+v", s)
	}
	if len(res.Bad) != 0 {
		t.Errorf("bad lines: %v", res.Bad)
	}
	checkInvariants(t, res)
}

func TestCommandStream(t *testing.T) {
	re := regexp.MustCompile(`tps=(?P<ops>[0-9.]+)(?: p99=(?P<p99_ms>[0-9.]+))?(?: err=(?P<errors>\S+))?`)
	in := "starting\ntps=100 p99=2.5\nnoise\ntps=110\ntps=120 p99=3 err=x\ntps=130 err=2\n"
	s := NewCommandStream(re)
	got := feed(t, s, in)
	want := map[int][]probe.Sample{
		1: {{Sec: 1, OpsPerS: 100, P99Ms: 2.5, Real: probe.FieldOps | probe.FieldP99}},
		3: {{Sec: 2, OpsPerS: 110, Real: probe.FieldOps}},
		5: {{Sec: 3, OpsPerS: 130, Errors: 2, Real: probe.FieldOps | probe.FieldErrors}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("samples by line (-want +got):\n%s", d)
	}
	res := s.Result()
	if res.Tool != FormatCommand || len(res.Bad) != 1 || !strings.Contains(res.Bad[0].Reason, "group errors") || res.Summary != nil {
		t.Errorf("result %+v", res)
	}
}

// Random lines, in any of the formats, never make a stream panic or give a
// sample that is not one.
func FuzzStream(f *testing.F) {
	for _, name := range []string{"sysbench-1.0.20-oltp_write_only.txt", "pgbench-15-P1.txt", "fio-3.33-etcd_iops.1.log", "fio-3.33-etcd_lat.1.log"} {
		f.Add(uint8(0), seedFile(f, name))
	}
	f.Add(uint8(3), fioReport(1000, 100)+fioReport(2000, 250)+"{\n}\n{\n")
	f.Add(uint8(3), seedFile(f, "fio-3.33-jsonplus-status.json")[:20000])
	f.Add(uint8(1), "[   1s] threads: 4, tps: 1234.56, reads: 0.00, writes: 4938.24, response time: 12.34ms (95%), errors: 0.00, reconnects:  0.00\n")
	formats := []string{FormatSysbench, FormatSysbench05, FormatPgbench, FormatFioJSON, FormatFioLog, FormatFioIOPSLog, FormatFioLatLog, FormatFioBWLog}
	f.Fuzz(func(t *testing.T, which uint8, in string) {
		for k := range formats {
			format := formats[(int(which)+k)%len(formats)]
			s, err := NewStream(format)
			if err != nil {
				t.Fatal(err)
			}
			var got []probe.Sample
			for _, l := range strings.Split(in, "\n") {
				got = append(got, s.Line(l)...)
			}
			got = append(got, s.end()...)
			checkStreamed(t, format, got)
			res := s.Result()
			if d := cmp.Diff(got, res.Samples, cmpopts.EquateEmpty(), cmpopts.EquateNaNs()); d != "" {
				t.Fatalf("%s: Result's samples are not those Line gave (-line +result):\n%s", format, d)
			}
			checkInvariants(t, res)
		}
	})
}

// Any valid pattern over any lines: samples numbered 1, 2, 3…
func FuzzCommandStream(f *testing.F) {
	f.Add(`tps=(?P<ops>[0-9.]+) lat=(?P<lat_ms>[0-9.]+)`, "tps=1 lat=2\nnoise\ntps=3 lat=x\ntps=4 lat=5\n")
	f.Add(`(?P<ops>\S+) (?P<errors>\S*) (?P<mib>-?\d+)?`, "1 2 3\nNaN 1 2\n1e400 0 0\n0x10 1 -1\n")
	f.Fuzz(func(t *testing.T, pattern, in string) {
		re, err := probe.CommandPattern(pattern)
		if err != nil {
			return
		}
		s := NewCommandStream(re)
		var got []probe.Sample
		for _, l := range strings.Split(in, "\n") {
			got = append(got, s.Line(l)...)
		}
		checkStreamed(t, "command", got)
		for i, x := range got {
			if x.Sec != i+1 {
				t.Fatalf("sample %d is second %d", i, x.Sec)
			}
		}
		checkInvariants(t, s.Result())
	})
}

func checkStreamed(t *testing.T, format string, ss []probe.Sample) {
	t.Helper()
	for i, x := range ss {
		for _, v := range []float64{x.OpsPerS, x.MiBPerS, x.P50Ms, x.P95Ms, x.P99Ms, x.MaxMs, x.AvgMs, float64(x.Errors)} {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				t.Fatalf("%s: sample %d has a negative or non-finite value: %+v", format, i, x)
			}
		}
		if x.Real == 0 {
			t.Fatalf("%s: sample %d measured nothing: %+v", format, i, x)
		}
		if i > 0 && x.Sec <= ss[i-1].Sec {
			t.Fatalf("%s: sample %d is second %d, after %d", format, i, x.Sec, ss[i-1].Sec)
		}
	}
}
