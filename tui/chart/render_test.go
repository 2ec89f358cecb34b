package chart

import (
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/perfbisect/perfbisect/internal/series"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden with what Render draws now")

// bisect is a step that ran 25 s of a 60 s window, drawn over a full
// reference and a full regression: the TUI's latency chart mid-step.
// The values are arithmetic, so goldens do not depend on math's assembly.
func bisect() []Series {
	ref := make([]float64, 60)
	reg := make([]float64, 60)
	step := make([]float64, 25)
	for i := range ref {
		ref[i] = 2 + float64(i%7)/4
		reg[i] = 12 + float64(i*5%11)/2
	}
	for i := range step {
		step[i] = 2.2 + float64(i%5)*0.3
	}
	step[17] = 28.5 // a stall: the step's p99 spikes
	return []Series{
		{Name: "reference", Values: ref, Color: ColorReference, Reduce: series.Max},
		{Name: "regression", Values: reg, Color: ColorRegression, Reduce: series.Max},
		{Name: "step tmpfs", Values: step, Color: ColorStep, Reduce: series.Max},
	}
}

// long is three 600-second runs of throughput for the longest window.
func long() []Series {
	out := make([]Series, 3)
	for k, name := range []string{"reference", "regression", "step volume-type"} {
		v := make([]float64, 600)
		for i := range v {
			v[i] = float64(4000-1200*k) + float64(i*37%101)*7
			if (i+13*k)%97 == 0 {
				v[i] = 40 // a stall, which series.Min keeps
			}
		}
		out[k] = Series{Name: name, Values: v, Reduce: series.Min}
	}
	return out
}

func TestRenderGolden(t *testing.T) {
	uu := map[string]struct {
		c    Chart
		w, h int
	}{
		"latency_78x6":          {Chart{Title: "latency p99 ms, last 60s", Series: bisect(), Window: 60, FirstSec: 1}, 78, 6},
		"latency_118x12":        {Chart{Title: "latency p99 ms, last 60s", Series: bisect(), Window: 60, FirstSec: 1}, 118, 12},
		"later_window_78x6":     {Chart{Title: "throughput ops/s, last 60s", Series: bisect()[2:], Window: 60, FirstSec: 141}, 78, 6},
		"long_window_78x6":      {Chart{Title: "throughput ops/s, last 600s", Series: long(), Window: 600, FirstSec: 1}, 78, 6},
		"long_window_118x12":    {Chart{Title: "throughput ops/s, last 600s", Series: long(), Window: 600, FirstSec: 1}, 118, 12},
		"empty_78x6":            {Chart{Title: "latency p99 ms, last 60s", Series: []Series{{Name: "step tmpfs"}}, Window: 60, FirstSec: 1}, 78, 6},
		"empty_118x12":          {Chart{Title: "throughput ops/s"}, 118, 12},
		"single_point_78x6":     {Chart{Title: "p99 ms", Series: []Series{{Name: "step", Values: []float64{0.42}}}, Window: 30, FirstSec: 1}, 78, 6},
		"zeros_78x6":            {Chart{Title: "MiB/s", Series: []Series{{Name: "step", Values: make([]float64, 40)}}, FirstSec: 1}, 78, 6},
		"gaps_and_huge_78x6":    {Chart{Title: "max ms", Series: []Series{{Name: "step", Values: []float64{1, math.NaN(), 3e9, 2e9, math.NaN(), math.NaN(), 5e8}}}, FirstSec: 1}, 78, 6},
		"narrow_header_40x6":    {Chart{Title: "latency p99 ms, last 60s", Series: bisect(), Window: 60, FirstSec: 1}, 40, 6},
		"render_shorthand_78x6": {Chart{}, 78, 6}, // drawn by Render below
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) {
			got := u.c.Render(u.w, u.h)
			if name == "render_shorthand_78x6" {
				got = Render("ops/s", 78, 6, []Series{{Name: "step", Values: []float64{900, 1000, 1100, 1050, 300, 1000}}}, false)
			}
			checkSize(t, got, u.w, u.h)
			path := filepath.Join("testdata", name+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./tui/chart -update to write it)", err)
			}
			if got != string(want) {
				t.Errorf("Render differs from %s (go test ./tui/chart -update rewrites it)\ngot:\n%s\nwant:\n%s", path, got, want)
			}
		})
	}
}

// checkSize fails unless s is exactly h lines of exactly w cells (nothing
// for a box without cells).
func checkSize(t *testing.T, s string, w, h int) {
	t.Helper()
	if w <= 0 || h <= 0 {
		if s != "" {
			t.Errorf("%dx%d: got %q, want nothing", w, h, s)
		}
		return
	}
	lines := strings.Split(s, "\n")
	if len(lines) != h {
		t.Errorf("%dx%d: %d lines, want %d:\n%s", w, h, len(lines), h, s)
	}
	for i, l := range lines {
		if lw := lipgloss.Width(l); lw != w {
			t.Errorf("%dx%d: line %d is %d cells wide, want %d: %q", w, h, i, lw, w, l)
		}
	}
	if lipgloss.Width(s) > w || lipgloss.Height(s) > h {
		t.Errorf("%dx%d: lipgloss measures %dx%d", w, h, lipgloss.Width(s), lipgloss.Height(s))
	}
}

// randomValue is a value from one of the shapes that break charts.
func randomValue(rng *rand.Rand, shape int) float64 {
	switch shape {
	case 0:
		return 0
	case 1:
		return 42
	case 2:
		return rng.Float64() * 1000
	case 3:
		return rng.NormFloat64() * 1e6
	case 4:
		return []float64{math.MaxFloat64, -math.MaxFloat64, 1e300, 1e-320, -1e-320, 5e-324}[rng.IntN(6)]
	case 5:
		return []float64{math.NaN(), math.Inf(1), math.Inf(-1), 1}[rng.IntN(4)]
	case 6:
		return float64(rng.Int64()) * math.Pow10(rng.IntN(600)-300)
	}
	return rng.Float64() * 1e-5
}

// TestRenderNeverOverflows draws random charts, degenerate ones included,
// and holds Render to its box: never wider, never taller, no escape code
// without colour.
func TestRenderNeverOverflows(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	titles := []string{"", "p99 ms", "latency p99 ms, last 600s [frozen]", "延迟 p99 毫秒 — 参考", "two\nlines\tand\x1b[31mred\x1b[0m", strings.Repeat("x", 300)}
	sizes := []int{-1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 20, 40, 78, 118, 200}
	for i := range 3000 {
		c := Chart{
			Title:    titles[rng.IntN(len(titles))],
			Window:   []int{-5, 0, 1, 2, 30, 60, 600, 1 << 40, math.MaxInt}[rng.IntN(9)],
			FirstSec: []int{1, 0, -7, 141, math.MaxInt, math.MinInt}[rng.IntN(6)],
		}
		for range rng.IntN(5) {
			shape := rng.IntN(8)
			n := []int{0, 1, 2, 3, 60, 601, rng.IntN(2000)}[rng.IntN(7)]
			v := make([]float64, n)
			for j := range v {
				if rng.IntN(4) == 0 {
					v[j] = randomValue(rng, rng.IntN(8)) // mixed shapes
				} else {
					v[j] = randomValue(rng, shape)
				}
			}
			c.Series = append(c.Series, Series{
				Name:   titles[rng.IntN(len(titles))],
				Values: v,
				Color:  Color(rng.IntN(256)),
				Reduce: series.Reduce(rng.IntN(4)),
			})
		}
		w, h := sizes[rng.IntN(len(sizes))], sizes[rng.IntN(len(sizes))]
		if rng.IntN(3) == 0 {
			w, h = rng.IntN(300)-2, rng.IntN(80)-2
		}
		for _, color := range []bool{false, true} {
			c.Color = color
			got := c.Render(w, h)
			checkSize(t, got, w, h)
			if !color && strings.Contains(got, "\x1b") {
				t.Errorf("case %d (%dx%d): escape code without colour:\n%q", i, w, h, got)
			}
			if t.Failed() {
				t.Fatalf("case %d: chart %+v at %dx%d", i, c, w, h)
			}
		}
	}
}

func TestRenderColor(t *testing.T) {
	c := Chart{Title: "p99 ms", Series: bisect(), Window: 60, FirstSec: 1}
	if got := c.Render(78, 8); strings.Contains(got, "\x1b") {
		t.Errorf("escape codes without colour:\n%q", got)
	}
	c.Color = true
	got := c.Render(78, 8)
	checkSize(t, got, 78, 8)
	for _, want := range []string{"\x1b[38;5;39m", "\x1b[38;5;245m", "\x1b[38;5;203m", "\x1b[1mp99 ms\x1b[0m"} {
		if !strings.Contains(got, want) {
			t.Errorf("colour: no %q in\n%q", want, got)
		}
	}
	// Coloured lines end reset, so colour cannot run into the next view.
	for i, l := range strings.Split(got, "\n") {
		if k := strings.LastIndex(l, "\x1b["); k >= 0 && !strings.HasPrefix(l[k:], "\x1b[0m") {
			t.Errorf("line %d does not end reset: %q", i, l)
		}
	}
	// A zero Color still colours, from the palette.
	c.Series = []Series{{Name: "a", Values: []float64{1, 2}}, {Name: "b", Values: []float64{2, 1}}}
	if got := c.Render(40, 6); !strings.Contains(got, "\x1b[38;5;39m") || !strings.Contains(got, "\x1b[38;5;203m") {
		t.Errorf("palette colours missing:\n%q", got)
	}
}

func TestRenderWaiting(t *testing.T) {
	for _, s := range [][]Series{nil, {{Name: "step"}}, {{Name: "step", Values: []float64{math.NaN(), math.NaN()}}}} {
		got := Render("p99 ms", 78, 6, s, false)
		checkSize(t, got, 78, 6)
		if !strings.Contains(got, "waiting for the first second") {
			t.Errorf("%v: no waiting line:\n%s", s, got)
		}
	}
	// Even where only one line of text fits.
	if got := Render("p99 ms", 40, 2, nil, false); !strings.Contains(got, "waiting for the first second") {
		t.Errorf("40x2: no waiting line:\n%s", got)
	}
}

// A run shorter than the window keeps to the left, where its seconds are.
func TestRenderShortSeriesFromLeft(t *testing.T) {
	v := make([]float64, 15)
	for i := range v {
		v[i] = 10
	}
	got := Chart{Title: "t", Series: []Series{{Name: "s", Values: v}}, Window: 60, FirstSec: 1}.Render(78, 6)
	lines := strings.Split(got, "\n")
	plot := lines[1 : len(lines)-1]
	// Labels "10" and "0" are 2 wide; with the gutter the plot starts at
	// column 5 and has 73 columns (74 positions, the axis being the first):
	// second 15 of 60 is drawn at column 4+17, its end cap at 22.
	for i, l := range plot {
		r := []rune(l)
		if tail := strings.TrimSpace(string(r[6+20:])); tail != "" {
			t.Errorf("plot line %d has %q past a quarter of the window:\n%s", i, tail, got)
		}
	}
	if !strings.Contains(got, "─") {
		t.Errorf("no line drawn:\n%s", got)
	}
}

func TestRenderTitleIsPlain(t *testing.T) {
	got := Render("a\nb\x1b[31mred", 40, 6, []Series{{Name: "x\ty", Values: []float64{1, 2}}}, false)
	checkSize(t, got, 40, 6)
	if first := strings.Split(got, "\n")[0]; !strings.HasPrefix(first, "a bred  ── x y") {
		t.Errorf("title line %q", first)
	}
}
