package probe

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTally: each field from the seconds that have it, a latency from the
// seconds that had operations; percentiles are the medians of the
// seconds', the mean latency weighted by operations.
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
	// A stall: its 0 ops/s counts, its 0 ms latencies are none (were they
	// taken, p50 would be 1.5 and p99 5).
	tl.Add(Sample{Sec: 5, Real: lat})
	got, notes := tl.Summary()
	want := Summary{
		DurationS: 5, Ops: 600, OpsPerS: 150, MiBPerS: 4, Errors: 2,
		P50Ms: 2, P99Ms: 7, MaxMs: 20, AvgMs: (100*2.0 + 300*1 + 200*4) / 600,
		Real: FieldOps | FieldMiB | FieldErrors | FieldP50 | FieldP99 | FieldAvg | FieldMax,
	}
	if d := cmp.Diff(want, got, cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-12 })); d != "" || notes != nil {
		t.Errorf("Summary (-want +got):\n%s\nnotes %q", d, notes)
	}
	thr := tl.Throughput()
	if thr.Real != FieldOps|FieldMiB|FieldErrors || thr.P50Ms != 0 || thr.MaxMs != 0 || thr.OpsPerS != 150 {
		t.Errorf("Throughput = %+v, want no latencies", thr)
	}

	// Only stalls: no latency at all, rather than 0 ms.
	var stalled Tally
	stalled.Add(Sample{Sec: 1, Real: lat})
	stalled.Add(Sample{Sec: 2, Real: lat})
	if s, _ := stalled.Summary(); s.Real != FieldOps || s.DurationS != 2 {
		t.Errorf("only stalls: %+v, Real %v; want 2 s of 0 ops/s and no latency", s, s.Real)
	}

	// Means without operation counts count each second alike, and say so.
	var avgOnly Tally
	avgOnly.Add(Sample{AvgMs: 1, Real: FieldAvg})
	avgOnly.Add(Sample{AvgMs: 4, Real: FieldAvg})
	if s, notes := avgOnly.Summary(); s.AvgMs != 2.5 || s.Real != FieldAvg || len(notes) != 1 {
		t.Errorf("means only: %+v, %q", s, notes)
	}
}
