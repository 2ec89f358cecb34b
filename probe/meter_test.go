package probe

import (
	"math"
	"runtime"
	"sync"
	"testing"
	"time"
)

var meterT0 = time.Unix(1000, 0)

// meterCheckMs checks a latency read from the histogram: three significant
// digits (HDR keeps values to better than 1 part in 1000), plus the 0.1 µs
// rounding of ms.
func meterCheckMs(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.IsNaN(got) || math.Abs(got-want) > want*1e-3+1e-4 {
		t.Errorf("%s = %v ms, want %v ms to 3 significant digits", what, got, want)
	}
}

// meterCheckSample checks a cut second: its percentiles as meterCheckMs
// does, every other field exactly.
func meterCheckSample(t *testing.T, what string, got, want Sample) {
	t.Helper()
	meterCheckMs(t, what+" P50Ms", got.P50Ms, want.P50Ms)
	meterCheckMs(t, what+" P95Ms", got.P95Ms, want.P95Ms)
	meterCheckMs(t, what+" P99Ms", got.P99Ms, want.P99Ms)
	got.P50Ms, got.P95Ms, got.P99Ms = want.P50Ms, want.P95Ms, want.P99Ms
	if got != want {
		t.Errorf("%s = %+v, want %+v (percentiles aside)", what, got, want)
	}
}

func meterRecordN(r *Recorder, n int, d time.Duration, bytes int) {
	for range n {
		r.Record(d, bytes)
	}
}

func meterCheckFinite(t *testing.T, what string, vs ...float64) {
	t.Helper()
	for i, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Errorf("%s: field %d is %v", what, i, v)
		}
	}
}

func TestMeterCutOneSecond(t *testing.T) {
	m := NewMeter(2, meterT0)
	meterRecordN(m.Recorder(0), 980, time.Millisecond, 4096)
	meterRecordN(m.Recorder(1), 20, 50*time.Millisecond, 4096)
	for range 3 {
		m.Recorder(1).Error()
	}

	// Merged over both writers: 98% took 1 ms, the slowest 2% took 50 ms.
	// 1000 × 4096 B = 3.90625 MiB, kept to 3 decimals.
	meterCheckSample(t, "second 1", m.Cut(meterT0.Add(time.Second)),
		Sample{Sec: 1, OpsPerS: 1000, MiBPerS: 3.906, P50Ms: 1, P95Ms: 1, P99Ms: 50, MaxMs: 50, Errors: 3})

	// The next second reflects only itself: histograms, max, bytes and
	// errors were reset by the cut.
	meterRecordN(m.Recorder(0), 100, 10*time.Millisecond, 8192)
	meterCheckSample(t, "second 2", m.Cut(meterT0.Add(2*time.Second)),
		Sample{Sec: 2, OpsPerS: 100, MiBPerS: 0.781, P50Ms: 10, P95Ms: 10, P99Ms: 10, MaxMs: 10})

	// Rates are per second of the interval's real length: 100 ops in half a
	// second is 200 ops/s.
	meterRecordN(m.Recorder(1), 100, 2*time.Millisecond, 1<<20)
	meterCheckSample(t, "half second", m.Cut(meterT0.Add(2500*time.Millisecond)),
		Sample{Sec: 3, OpsPerS: 200, MiBPerS: 200, P50Ms: 2, P95Ms: 2, P99Ms: 2, MaxMs: 2})

	// The same 100 ops over a whole second are 100 ops/s.
	meterRecordN(m.Recorder(1), 100, 2*time.Millisecond, 1<<20)
	meterCheckSample(t, "whole second", m.Cut(meterT0.Add(3500*time.Millisecond)),
		Sample{Sec: 4, OpsPerS: 100, MiBPerS: 100, P50Ms: 2, P95Ms: 2, P99Ms: 2, MaxMs: 2})

	sum := m.Summary()
	if sum.DurationS != 3.5 || sum.Ops != 1300 || sum.Errors != 3 || sum.MaxMs != 50 {
		t.Errorf("Summary = %+v, want 3.5 s, 1300 ops, 3 errors, max 50 ms", sum)
	}
	if want := round(1300/3.5, 2); sum.OpsPerS != want {
		t.Errorf("Summary OpsPerS = %v, want %v", sum.OpsPerS, want)
	}
	// 1000 × 4 KiB + 100 × 8 KiB + 200 × 1 MiB = 204.6875 MiB.
	if want := round(204.6875/3.5, 3); sum.MiBPerS != want {
		t.Errorf("Summary MiBPerS = %v, want %v", sum.MiBPerS, want)
	}
	// 1300 ops: 980 of 1 ms, 200 of 2 ms, 100 of 10 ms, 20 of 50 ms.
	meterCheckMs(t, "Summary P50Ms", sum.P50Ms, 1)
	meterCheckMs(t, "Summary P95Ms", sum.P95Ms, 10)
	meterCheckMs(t, "Summary P99Ms", sum.P99Ms, 50)
	if sum.Ended != "" || sum.Error != "" || sum.Workload != (Spec{}) {
		t.Errorf("Summary sets Ended %q, Error %q, Workload %+v; those are the caller's", sum.Ended, sum.Error, sum.Workload)
	}
}

func TestMeterSummaryMergesNotAverages(t *testing.T) {
	uu := map[string]struct {
		seconds  [][2]int // per second: how many ops of 1 ms, how many of 100 ms
		wantP99  float64
		wantP50  float64
		wantOps  int64
		wantMax  float64
		wantMean float64 // what averaging the per-second p99s would say
	}{
		// One busy fast second, one quiet slow second: the slow ops are
		// 0.5% of the run, so its p99 is fast, though the mean of the
		// per-second p99s is half way to the slow ones.
		"slow quiet second": {
			seconds: [][2]int{{1000, 0}, {0, 5}},
			wantP99: 1, wantP50: 1, wantOps: 1005, wantMax: 100, wantMean: 50.5,
		},
		// One slow busy second and nine quiet fast ones: most of the run
		// was slow, though nine of ten per-second p99s are fast.
		"slow busy second": {
			seconds: [][2]int{{0, 100}, {1, 0}, {1, 0}, {1, 0}, {1, 0}, {1, 0}, {1, 0}, {1, 0}, {1, 0}, {1, 0}},
			wantP99: 100, wantP50: 100, wantOps: 109, wantMax: 100, wantMean: 10.9,
		},
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) {
			m := NewMeter(1, meterT0)
			var p99s float64
			for i, sec := range u.seconds {
				meterRecordN(m.Recorder(0), sec[0], time.Millisecond, 512)
				meterRecordN(m.Recorder(0), sec[1], 100*time.Millisecond, 512)
				p99s += m.Cut(meterT0.Add(time.Duration(i+1) * time.Second)).P99Ms
			}
			mean := p99s / float64(len(u.seconds))
			if math.Abs(mean-u.wantMean) > 0.1 {
				t.Fatalf("mean of per-second p99s = %v, want about %v (the case is not what it claims)", mean, u.wantMean)
			}
			sum := m.Summary()
			meterCheckMs(t, "Summary P99Ms", sum.P99Ms, u.wantP99)
			meterCheckMs(t, "Summary P50Ms", sum.P50Ms, u.wantP50)
			if math.Abs(sum.P99Ms-mean) < 5 {
				t.Errorf("Summary P99Ms = %v is the mean of per-second p99s %v", sum.P99Ms, mean)
			}
			if sum.Ops != u.wantOps || sum.MaxMs != u.wantMax {
				t.Errorf("Summary Ops %d MaxMs %v, want %d and %v", sum.Ops, sum.MaxMs, u.wantOps, u.wantMax)
			}
			if want := float64(len(u.seconds)); sum.DurationS != want {
				t.Errorf("Summary DurationS = %v, want %v", sum.DurationS, want)
			}
		})
	}
}

func TestMeterSummaryStopsAtLastCut(t *testing.T) {
	m := NewMeter(1, meterT0)
	meterRecordN(m.Recorder(0), 10, time.Millisecond, 100)
	m.Cut(meterT0.Add(time.Second))
	meterRecordN(m.Recorder(0), 7, 900*time.Millisecond, 100)
	m.Recorder(0).Error()
	sum := m.Summary()
	if sum.Ops != 10 || sum.Errors != 0 || sum.MaxMs != 1 || sum.DurationS != 1 {
		t.Errorf("Summary before the second cut = %+v, want only the first second's 10 ops", sum)
	}
	m.Cut(meterT0.Add(2 * time.Second))
	sum = m.Summary()
	if sum.Ops != 17 || sum.Errors != 1 || sum.MaxMs != 900 || sum.DurationS != 2 {
		t.Errorf("Summary after the second cut = %+v, want 17 ops, 1 error, max 900 ms over 2 s", sum)
	}
}

func TestMeterEmpty(t *testing.T) {
	m := NewMeter(3, meterT0)
	sum := m.Summary()
	meterCheckFinite(t, "Summary before any cut", sum.DurationS, sum.OpsPerS, sum.MiBPerS, sum.P50Ms, sum.P95Ms, sum.P99Ms, sum.MaxMs)
	if sum != (Summary{}) {
		t.Errorf("Summary before any cut = %+v, want zeros", sum)
	}

	for i := 1; i <= 3; i++ {
		s := m.Cut(meterT0.Add(time.Duration(i) * time.Second))
		meterCheckFinite(t, "empty second", s.OpsPerS, s.MiBPerS, s.P50Ms, s.P95Ms, s.P99Ms, s.MaxMs)
		if s != (Sample{Sec: i}) {
			t.Errorf("empty second %d = %+v, want zeros", i, s)
		}
	}
	sum = m.Summary()
	meterCheckFinite(t, "Summary of empty seconds", sum.DurationS, sum.OpsPerS, sum.MiBPerS, sum.P50Ms, sum.P95Ms, sum.P99Ms, sum.MaxMs)
	if sum != (Summary{DurationS: 3}) {
		t.Errorf("Summary of empty seconds = %+v, want zeros over 3 s", sum)
	}

	// No writers at all.
	if s := NewMeter(0, meterT0).Cut(meterT0.Add(time.Second)); s != (Sample{Sec: 1}) {
		t.Errorf("meter without writers: %+v, want zeros", s)
	}
}

func TestMeterZeroLengthInterval(t *testing.T) {
	m := NewMeter(1, meterT0)
	meterRecordN(m.Recorder(0), 5, time.Millisecond, 4096)
	s := m.Cut(meterT0) // no time passed
	meterCheckFinite(t, "zero-length interval", s.OpsPerS, s.MiBPerS, s.P50Ms, s.P99Ms, s.MaxMs)
	if s.OpsPerS != 0 || s.MiBPerS != 0 {
		t.Errorf("zero-length interval rates %v ops/s %v MiB/s, want 0 rather than infinity", s.OpsPerS, s.MiBPerS)
	}
	meterRecordN(m.Recorder(0), 5, time.Millisecond, 4096)
	s = m.Cut(meterT0.Add(-time.Second)) // a clock that stepped back
	meterCheckFinite(t, "negative interval", s.OpsPerS, s.MiBPerS)
	if s.OpsPerS != 0 || s.MiBPerS != 0 {
		t.Errorf("negative interval rates %v ops/s %v MiB/s, want 0", s.OpsPerS, s.MiBPerS)
	}
	sum := m.Summary()
	meterCheckFinite(t, "Summary", sum.DurationS, sum.OpsPerS, sum.MiBPerS)
	if sum.Ops != 10 {
		t.Errorf("Summary Ops = %d, want 10", sum.Ops)
	}
}

func TestMeterClampsSlowAndInstantOps(t *testing.T) {
	m := NewMeter(1, meterT0)
	r := m.Recorder(0)
	r.Record(20*time.Minute, 1)
	r.Record(20*time.Minute, 1)
	r.Record(0, 1)
	r.Record(-time.Second, 1) // a clock that stepped back during the op
	// Clamped ops still count. The max, 20 minutes, is kept apart from the
	// histogram, which holds the slow ops as 10 minutes, and the instant
	// ones as 1 ns, which rounds to 0 ms (exactly: see below).
	s := m.Cut(meterT0.Add(time.Second))
	meterCheckSample(t, "Cut", s, Sample{Sec: 1, OpsPerS: 4, P95Ms: 6e5, P99Ms: 6e5, MaxMs: 1.2e6})
	if s.P50Ms != 0 {
		t.Errorf("P50Ms = %v, want 0 for ops of 0 ns and less", s.P50Ms)
	}

	sum := m.Summary()
	if sum.MaxMs != 1.2e6 {
		t.Errorf("Summary MaxMs = %v, want exactly 1200000", sum.MaxMs)
	}
	meterCheckMs(t, "Summary P99Ms", sum.P99Ms, 6e5)
	if sum.Ops != 4 {
		t.Errorf("Summary Ops = %d, want 4", sum.Ops)
	}
}

// A percentile can never exceed the largest value, but the histogram reports
// the top of a value's bucket (up to 0.1% above it) while MaxMs is exact: when
// every op takes 1234 ms, p50 and p99 read 1234.174 and max 1234.
func TestMeterPercentilesNotAboveMax(t *testing.T) {
	for _, d := range []time.Duration{time.Millisecond, 50 * time.Millisecond, 1234 * time.Millisecond, 20 * time.Minute} {
		m := NewMeter(1, meterT0)
		meterRecordN(m.Recorder(0), 100, d, 1)
		s := m.Cut(meterT0.Add(time.Second))
		sum := m.Summary()
		for _, p := range []float64{s.P50Ms, s.P95Ms, s.P99Ms, sum.P50Ms, sum.P95Ms, sum.P99Ms} {
			if p > s.MaxMs || p > sum.MaxMs {
				t.Errorf("ops of %v: a percentile reads %v ms, above the max %v ms", d, p, s.MaxMs)
			}
		}
	}
}

func TestMeterRecordersAreSeparate(t *testing.T) {
	m := NewMeter(3, meterT0)
	if m.Recorder(0) == m.Recorder(1) || m.Recorder(1) == m.Recorder(2) {
		t.Fatalf("writers share a recorder")
	}
	if r2 := m.Recorder(2); m.Recorder(2) != r2 {
		t.Fatalf("Recorder(2) changes between calls")
	}
	m.Recorder(0).Record(3*time.Millisecond, 1)
	m.Recorder(2).Record(7*time.Millisecond, 1)
	m.Recorder(1).Error()
	m.Recorder(2).Error()
	// Ops, errors and latencies from all writers.
	meterCheckSample(t, "Cut", m.Cut(meterT0.Add(time.Second)),
		Sample{Sec: 1, OpsPerS: 2, P50Ms: 3, P95Ms: 7, P99Ms: 7, MaxMs: 7, Errors: 2})
}

func TestMeterConcurrentRecordAndCut(t *testing.T) {
	const writers, perWriter = 8, 20000
	m := NewMeter(writers, meterT0)

	stop := make(chan struct{})
	cutterDone := make(chan struct{})
	var cuts int
	var sampledOps, sampledErrors float64
	started := make(chan struct{})
	go func() {
		defer close(cutterDone)
		now := meterT0
		for {
			now = now.Add(time.Second) // one simulated second per cut: OpsPerS is the op count
			s := m.Cut(now)
			cuts++
			sampledOps += s.OpsPerS
			sampledErrors += float64(s.Errors)
			if cuts == 1 {
				close(started)
			}
			select {
			case <-stop:
				return
			default:
			}
		}
	}()
	<-started

	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			r := m.Recorder(w)
			for i := range perWriter {
				r.Record(time.Duration(i%5000+1)*time.Microsecond, 4096)
				if i%100 == 0 {
					r.Error()
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	<-cutterDone

	last := m.Cut(meterT0.Add(time.Duration(cuts+1) * time.Second))
	sampledOps += last.OpsPerS
	sampledErrors += float64(last.Errors)
	sum := m.Summary()

	const wantOps, wantErrors = writers * perWriter, writers * perWriter / 100
	if sum.Ops != wantOps {
		t.Errorf("Summary Ops = %d, want %d: operations were lost or counted twice across cuts", sum.Ops, wantOps)
	}
	if sampledOps != wantOps {
		t.Errorf("samples add up to %v ops, want %d", sampledOps, wantOps)
	}
	if sum.Errors != wantErrors || sampledErrors != wantErrors {
		t.Errorf("errors: Summary %d, samples %v, want %d", sum.Errors, sampledErrors, wantErrors)
	}
	if sum.MaxMs != 5 {
		t.Errorf("Summary MaxMs = %v, want 5", sum.MaxMs)
	}
	if want := round(float64(wantOps)*4096/float64(MiB)/sum.DurationS, 3); sum.MiBPerS != want {
		t.Errorf("Summary MiBPerS = %v, want %v: bytes were lost across cuts", sum.MiBPerS, want)
	}
}

// meterDrive runs simulated seconds [from, to) with perSec ops each, spread
// over a wide range of latencies so that many histogram buckets are used.
func meterDrive(m *Meter, from, to, perSec int) {
	for sec := from; sec < to; sec++ {
		for i := range perSec {
			d := time.Duration((i*7919+sec*104729)%(1<<uint(10+i%30))) + time.Microsecond
			m.Recorder(i%len(m.recs)).Record(d, 4096)
		}
		m.Recorder(sec % len(m.recs)).Error()
		m.Cut(meterT0.Add(time.Duration(sec+1) * time.Second))
	}
}

func meterHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func TestMeterMemoryIsConstantInRunLength(t *testing.T) {
	if testing.Short() {
		t.Skip("drives 600 simulated seconds")
	}
	const perSec = 1000
	m := NewMeter(2, meterT0)
	meterDrive(m, 0, 10, perSec)
	after10 := meterHeap()
	meterDrive(m, 10, 600, perSec)
	after600 := meterHeap()

	sum := m.Summary()
	if sum.Ops != 600*perSec || sum.DurationS != 600 || sum.Errors != 600 {
		t.Fatalf("Summary = %+v, want 600000 ops and 600 errors over 600 s", sum)
	}
	runtime.KeepAlive(m)

	diff := int64(after600) - int64(after10)
	t.Logf("heap after 10 s: %d B, after 600 s: %d B (%+d B)", after10, after600, diff)
	if diff >= 1<<20 || diff <= -(1<<20) {
		t.Errorf("heap after 600 s differs from after 10 s by %d B, want under 1 MiB: the meter keeps something per second or per op", diff)
	}
}

func TestRecorderRecordDoesNotAllocate(t *testing.T) {
	m := NewMeter(1, meterT0)
	r := m.Recorder(0)
	i := 0
	allocs := testing.AllocsPerRun(10000, func() {
		i++
		r.Record(time.Duration(i%100000)*time.Microsecond, 4096)
	})
	if allocs != 0 {
		t.Errorf("Record allocates %v times per call, want 0", allocs)
	}
}

func BenchmarkRecorderRecord(b *testing.B) {
	m := NewMeter(1, meterT0)
	r := m.Recorder(0)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		r.Record(time.Duration(i%100000+1)*time.Microsecond, 4096)
	}
}

func BenchmarkMeterCut(b *testing.B) {
	const writers, perWriter = 4, 1000
	m := NewMeter(writers, meterT0)
	now := meterT0
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		for w := range writers {
			r := m.Recorder(w)
			for i := range perWriter {
				r.Record(time.Duration(i*w+1)*37*time.Microsecond, 4096)
			}
		}
		now = now.Add(time.Second)
		b.StartTimer()
		m.Cut(now)
	}
}
