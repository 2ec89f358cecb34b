package chart

import (
	"testing"

	"github.com/perfbisect/perfbisect/probe"
)

// BenchmarkRingPushTail is one second of a live chart's feed: a push, then
// the window read back into a reused slice. Both must be free of allocations.
func BenchmarkRingPushTail(b *testing.B) {
	r := NewRing(600)
	dst := make([]float64, 0, 600)
	b.ReportAllocs()
	sec := 0
	for b.Loop() {
		sec++
		r.Push(sample(sec))
		dst = r.Tail(dst, probe.FieldP99, 600)
	}
}

// BenchmarkRingPush is the push alone, which runs for every sample of every
// step whether or not a chart is drawn.
func BenchmarkRingPush(b *testing.B) {
	r := NewRing(600)
	b.ReportAllocs()
	sec := 0
	for b.Loop() {
		sec++
		r.Push(sample(sec))
	}
}

// BenchmarkRender is one frame of the largest chart: 118x38 (a 120x40
// terminal), three 600-second runs in a 600-second window.
func BenchmarkRender(b *testing.B) {
	c := Chart{Title: "throughput ops/s, last 600s", Series: long(), Window: 600, FirstSec: 1}
	for _, color := range []bool{false, true} {
		c.Color = color
		name := "plain"
		if color {
			name = "color"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = c.Render(118, 38)
			}
		})
	}
}

// BenchmarkRender78x6 is the small chart of an 80x24 terminal, from rings
// as the TUI holds them.
func BenchmarkRender78x6(b *testing.B) {
	rings := [3]*Ring{NewRing(600), NewRing(600), NewRing(600)}
	for i := range 600 {
		for k, r := range rings {
			s := sample(i + 1)
			s.P99Ms += float64(k * 3)
			r.Push(s)
		}
	}
	var bufs [3][]float64
	b.ReportAllocs()
	for b.Loop() {
		from := rings[2].WindowStart(60)
		c := Chart{Title: "latency p99 ms, last 60s", Window: 60, FirstSec: from}
		for k, r := range rings {
			bufs[k] = r.Range(bufs[k], probe.FieldP99, from, 60)
			c.Series = append(c.Series, Series{Name: "run", Values: bufs[k], Reduce: Worst(probe.FieldP99)})
		}
		_ = c.Render(78, 6)
	}
}
