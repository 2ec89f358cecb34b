package probe

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTally: each field from the seconds that have it; percentiles are the
// medians of the seconds', the mean latency weighted by operations.
func TestTally(t *testing.T) {
	var empty Tally
	if s, notes := empty.Summary(); s != (Summary{}) || notes != nil {
		t.Errorf("empty: %+v, %q", s, notes)
	}

	var tl Tally
	lat := FieldOps | FieldP50 | FieldP99 | FieldAvg | FieldMax
	tl.Add(Sample{Sec: 1, OpsPerS: 100, P50Ms: 1, P99Ms: 9, AvgMs: 2, MaxMs: 20, Real: lat})
	tl.Add(Sample{Sec: 2, OpsPerS: 300, P50Ms: 3, P99Ms: 5, AvgMs: 1, MaxMs: 10, Real: lat})
	tl.Add(Sample{Sec: 3, MiBPerS: 4, Errors: 2, Real: FieldMiB | FieldErrors})
	tl.Add(Sample{Sec: 4, OpsPerS: 200, P50Ms: 2, AvgMs: 4, Real: FieldOps | FieldP50 | FieldAvg})
	got, notes := tl.Summary()
	want := Summary{
		DurationS: 4, Ops: 600, OpsPerS: 200, MiBPerS: 4, Errors: 2,
		P50Ms: 2, P99Ms: 7, MaxMs: 20, AvgMs: (100*2.0 + 300*1 + 200*4) / 600,
		Real: FieldOps | FieldMiB | FieldErrors | FieldP50 | FieldP99 | FieldAvg | FieldMax,
	}
	if d := cmp.Diff(want, got, cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-12 })); d != "" || notes != nil {
		t.Errorf("Summary (-want +got):\n%s\nnotes %q", d, notes)
	}
	thr := tl.Throughput()
	if thr.Real != FieldOps|FieldMiB|FieldErrors || thr.P50Ms != 0 || thr.MaxMs != 0 || thr.OpsPerS != 200 {
		t.Errorf("Throughput = %+v, want no latencies", thr)
	}

	// Means without operation counts count each second alike, and say so.
	var avgOnly Tally
	avgOnly.Add(Sample{AvgMs: 1, Real: FieldAvg})
	avgOnly.Add(Sample{AvgMs: 4, Real: FieldAvg})
	if s, notes := avgOnly.Summary(); s.AvgMs != 2.5 || s.Real != FieldAvg || len(notes) != 1 {
		t.Errorf("means only: %+v, %q", s, notes)
	}
}
