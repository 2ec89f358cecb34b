package verdict

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"golang.org/x/perf/benchmath"
)

func TestUCounts(t *testing.T) {
	for _, mn := range [][2]int{{1, 1}, {2, 3}, {5, 5}, {8, 8}, {7, 12}, {50, 50}} {
		m, n := mn[0], mn[1]
		counts := uCounts(m, n)
		if len(counts) != m*n+1 {
			t.Fatalf("uCounts(%d, %d): %d values, want %d", m, n, len(counts), m*n+1)
		}
		var sum float64
		for u, c := range counts {
			sum += c
			if c != counts[m*n-u] {
				t.Errorf("uCounts(%d, %d): f(%d) = %v, f(%d) = %v; the distribution is symmetric", m, n, u, c, m*n-u, counts[m*n-u])
			}
		}
		if want := binomial(m+n, m); math.Abs(sum-want) > 1e-12*want {
			t.Errorf("uCounts(%d, %d) sums to %v, want C(%d, %d) = %v", m, n, sum, m+n, m, want)
		}
	}
	// By hand: x's at positions p1 < p2 of 5 have U = #{x > y} = p1 + p2 - 1,
	// so the 10 position pairs give U = 0, 1, 2, 3, 2, 3, 4, 4, 5, 6.
	if got, want := uCounts(2, 3), []float64{1, 1, 2, 2, 2, 1, 1}; !slices.Equal(got, want) {
		t.Errorf("uCounts(2, 3) = %v, want %v", got, want)
	}
}

func binomial(n, k int) float64 {
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return r
}

// The lower critical values of U for a two-sided test at 0.05 (reject when
// U <= c), from the standard tables (e.g. Zar, Biostatistical Analysis,
// table B.11); the interval's rank is c+1.
func TestExactCutoffMatchesTables(t *testing.T) {
	uu := map[string]struct {
		m, n, critical int
	}{
		"5+5":   {5, 5, 2},
		"6+6":   {6, 6, 5},
		"7+7":   {7, 7, 8},
		"8+8":   {8, 8, 13},
		"9+9":   {9, 9, 17},
		"10+10": {10, 10, 23},
		"20+20": {20, 20, 127},
		"5+10":  {5, 10, 8},
		"10+5":  {10, 5, 8},
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) {
			c := mosesCutoff(u.m, u.n, 0.95)
			if c.k != u.critical+1 {
				t.Errorf("k = %d, want %d", c.k, u.critical+1)
			}
			if c.coverage < 0.95 || c.coverage > 0.97 {
				t.Errorf("coverage = %v, want in [0.95, 0.97]", c.coverage)
			}
		})
	}
	if c := mosesCutoff(2, 2, 0.95); c.k != 0 {
		t.Errorf("2+2 at 95%%: k = %d, want 0 (no interval: min P(U<=0) is 1/6)", c.k)
	}
}

func TestNormalCutoffNearExact(t *testing.T) {
	for _, n := range []int{20, 30, 50} {
		ex, no := exactCutoff(n, n, 0.025), normalCutoff(n, n, 0.025)
		if d := ex.k - no.k; d < -1 || d > 1 {
			t.Errorf("%d+%d: exact k = %d, normal k = %d; want within 1", n, n, ex.k, no.k)
		}
		if math.Abs(ex.coverage-no.coverage) > 0.01 {
			t.Errorf("%d+%d: exact coverage %v, normal %v", n, n, ex.coverage, no.coverage)
		}
	}
}

func TestKthRatioMatchesSort(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		m, n := 1+r.IntN(12), 1+r.IntN(12)
		base, step := make([]float64, m), make([]float64, n)
		for i := range base {
			base[i] = float64(1 + r.IntN(6)) // small integers: many ties
		}
		for j := range step {
			step[j] = float64(r.IntN(6)) // zeros in step only: ratios of 0
		}
		if trial%3 == 0 { // and now zeros in base only: ratios of +Inf
			base, step = step, base
			for i := range step {
				step[i]++
			}
		}
		if trial%5 == 0 {
			for i := range base {
				base[i] = math.Exp(r.NormFloat64())
			}
		}
		slices.Sort(base)
		slices.Sort(step)
		var all []float64
		for _, x := range base {
			for _, y := range step {
				all = append(all, y/x)
			}
		}
		slices.Sort(all)
		for k := 1; k <= len(all); k++ {
			if got := kthRatio(base, step, k); got != all[k-1] {
				t.Fatalf("base %v step %v: k=%d: got %v, want %v", base, step, k, got, all[k-1])
			}
		}
	}
}

// Without ties the interval is the exact inverse of the U test: it excludes
// a ratio of 1 exactly when the test rejects at its level, 1-coverage.
func TestIntervalDualToUTest(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	th := &benchmath.DefaultThresholds
	for range 500 {
		m, n := 5+r.IntN(20), 5+r.IntN(20)
		shift := math.Exp(0.3 * r.NormFloat64())
		base, step := lognormal(r, m, 1, 0.2), lognormal(r, n, shift, 0.2)
		lo, hi, coverage, ok := ratioCI(sorted(base), sorted(step), 0.95)
		if !ok {
			t.Fatalf("%d+%d: no interval", m, n)
		}
		p := benchmath.AssumeNothing.Compare(benchmath.NewSample(base, th), benchmath.NewSample(step, th)).P
		excludes := lo > 1 || hi < 1
		if rejects := p <= 1-coverage+1e-12; excludes != rejects {
			t.Errorf("%d+%d: CI [%v, %v] (coverage %v) excludes 1: %v; p=%v rejects: %v", m, n, lo, hi, coverage, excludes, p, rejects)
		}
	}
}

func sorted(xs []float64) []float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s
}

func BenchmarkExactCutoff50(b *testing.B) {
	for b.Loop() {
		exactCutoff(50, 50, 0.025)
	}
}
