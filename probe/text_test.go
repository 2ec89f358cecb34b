package probe

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

var (
	textSample1 = Sample{Sec: 1, OpsPerS: 5120.5, MiBPerS: 20.002, P50Ms: 0.1843, P95Ms: 0.3121, P99Ms: 1.0004, MaxMs: 12.34, Errors: 0}
	textSample2 = Sample{Sec: 2, OpsPerS: 0.04, MiBPerS: 1234.5678, P50Ms: 0.0016, P95Ms: 99.94, P99Ms: 712.4, MaxMs: 1234, Errors: 3}
)

// The columns are "%4s %10s %8s %9s %9s %9s %9s %7s"; the expected text is
// spelled out so that a change of width or precision shows here.
const textHeader = " sec      ops/s    MiB/s    p50 ms    p95 ms    p99 ms    max ms  errors\n"

// A whole run: its seconds, then the summary under the same columns. A
// tool's table has an avg column and "-" where the tool gave no number;
// its text is the README's sysbench run.
func TestTextEncoderCompletedRun(t *testing.T) {
	tool := FieldOps | FieldP95 | FieldErrors
	uu := map[string]struct {
		samples []Sample
		sum     Summary
		want    string
	}{
		"probe": {
			[]Sample{textSample1, textSample2},
			Summary{
				DurationS: 2, Ops: 5121, OpsPerS: 2560.27, MiBPerS: 10.001,
				P50Ms: 0.184, P95Ms: 0.4, P99Ms: 1.2345, MaxMs: 1234, Errors: 3,
				Ended: EndCompleted, Workload: DefaultSpec(),
			},
			textHeader +
				"   1     5120.5    20.00     0.184     0.312      1.00      12.3       0\n" +
				"   2        0.0  1234.57     0.002      99.9       712      1234       3\n" +
				" all     2560.3    10.00     0.184     0.400      1.23      1234       3\n" +
				"5121 operations in 2.0s; percentiles over every operation of the run\n",
		},
		"tool": {
			[]Sample{{Sec: 1, OpsPerS: 4606.9, P95Ms: 0.28, Real: tool}, {Sec: 2, OpsPerS: 4804.1, P95Ms: 0.27, Real: tool}},
			Summary{DurationS: 4, Ops: 18667, OpsPerS: 4666.8, P95Ms: 0.28, AvgMs: 0.21, MaxMs: 4.24,
				Real: tool | FieldAvg | FieldMax, Ended: EndCompleted},
			" sec      ops/s    MiB/s    p50 ms    p95 ms    p99 ms    avg ms    max ms  errors\n" +
				"   1     4606.9        -         -     0.280         -         -         -       0\n" +
				"   2     4804.1        -         -     0.270         -         -         -       0\n" +
				" all     4666.8        -         -     0.280         -     0.210      4.24       0\n" +
				"18667 operations in 4.0s; latencies from the tool's own report (\"-\": it gave none)\n",
		},
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			enc := NewTextEncoder(&buf)
			for _, s := range u.samples {
				if err := enc.Sample(s); err != nil {
					t.Fatalf("Sample(%+v): %v", s, err)
				}
			}
			if err := enc.Summary(u.sum); err != nil {
				t.Fatalf("Summary: %v", err)
			}
			if got := buf.String(); got != u.want {
				t.Errorf("text output\n got:\n%s\nwant:\n%s", got, u.want)
			}
		})
	}
}

func TestTextEncoderCutShort(t *testing.T) {
	uu := map[string]struct {
		sum  Summary
		want string
	}{
		"failed": {
			Summary{DurationS: 0.42, Ops: 17, OpsPerS: 40.48, MiBPerS: 0.158, P50Ms: 12.34, P95Ms: 20, P99Ms: 20.01, MaxMs: 20.01, Errors: 1, Ended: EndFailed, Error: "no space left on device"},
			textHeader +
				" all       40.5     0.16      12.3      20.0      20.0      20.0       1\n" +
				"cut short (failed): 17 operations in 0.4s; percentiles over every operation measured\n",
		},
		"interrupted": {
			Summary{DurationS: 3.96, Ops: 4000, OpsPerS: 1010.1, MiBPerS: 3.946, P50Ms: 0.9, P95Ms: 1.1, P99Ms: 1.5, MaxMs: 7, Ended: EndInterrupted},
			textHeader +
				" all     1010.1     3.95     0.900      1.10      1.50      7.00       0\n" +
				"cut short (interrupted): 4000 operations in 4.0s; percentiles over every operation measured\n",
		},
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			// A summary with no samples before it still gets the header.
			if err := NewTextEncoder(&buf).Summary(u.sum); err != nil {
				t.Fatalf("Summary: %v", err)
			}
			if got := buf.String(); got != u.want {
				t.Errorf("text output\n got:\n%s\nwant:\n%s", got, u.want)
			}
		})
	}
}

func TestTextEncoderHeaderOnce(t *testing.T) {
	var buf bytes.Buffer
	enc := NewTextEncoder(&buf)
	for i := 1; i <= 5; i++ {
		if err := enc.Sample(Sample{Sec: i}); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Summary(Summary{Ended: EndCompleted}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if n := strings.Count(out, "ops/s"); n != 1 {
		t.Errorf("header written %d times, want once:\n%s", n, out)
	}
	if !strings.HasPrefix(out, textHeader) {
		t.Errorf("output does not start with the header:\n%s", out)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 1+5+2 {
		t.Errorf("%d lines, want header, 5 samples, summary row and its note:\n%s", len(lines), out)
	}
	// Every table row is as wide as the header.
	for i, l := range lines[:len(lines)-1] {
		if len(l) != len(textHeader)-1 {
			t.Errorf("line %d is %d wide, header is %d: %q", i, len(l), len(textHeader)-1, l)
		}
	}
}

type textFailWriter struct{ err error }

func (w textFailWriter) Write([]byte) (int, error) { return 0, w.err }

func TestTextEncoderReportsWriteError(t *testing.T) {
	want := errors.New("broken pipe")
	if err := NewTextEncoder(textFailWriter{want}).Sample(textSample1); !errors.Is(err, want) {
		t.Errorf("Sample on a failing writer = %v, want %v", err, want)
	}
	if err := NewTextEncoder(textFailWriter{want}).Summary(Summary{Ended: EndCompleted}); !errors.Is(err, want) {
		t.Errorf("Summary on a failing writer = %v, want %v", err, want)
	}
}

func TestMsText(t *testing.T) {
	uu := map[string]struct {
		in   float64
		want string
	}{
		"zero":                {0, "0.000"},
		"microseconds":        {0.0016, "0.002"},
		"one microsecond":     {0.001, "0.001"},
		"sub-microsecond":     {0.0004, "0.000"},
		"under a millisecond": {0.712, "0.712"},
		"one millisecond":     {1, "1.00"},
		"a few":               {1.19, "1.19"},
		"ten":                 {10, "10.0"},
		"tens":                {12.34, "12.3"},
		"hundred":             {100, "100"},
		"hundreds":            {712.4, "712"},
		"thousands":           {1234, "1234"},
		"ten minutes":         {600000, "600000"},
		// Just under a decade boundary, the precision of the decade below
		// rounds into the next: 9.999 to two decimals is "10.00", four
		// digits where MsText promises three.
		"just under 1":   {0.9996, "1.00"},
		"just under 10":  {9.999, "10.0"},
		"just under 100": {99.96, "100"},
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) {
			if got := MsText(u.in); got != u.want {
				t.Errorf("MsText(%v) = %q, want %q", u.in, got, u.want)
			}
		})
	}
}
