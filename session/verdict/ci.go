package verdict

import (
	"math"
	"sync"
)

// The interval on the ratio is the Moses (Hodges–Lehmann) interval for a
// shift in log values, the one that pairs with the Mann–Whitney U test: the
// set of ratios θ for which "step is base scaled by θ" is not rejected by the
// test. With D(1) <= … <= D(mn) the pairwise ratios step[j]/base[i], it is
// [D(k), D(mn+1-k)], where k is the largest integer with P(U <= k-1) <= α/2
// under the null distribution of U; its coverage is 1 - 2·P(U <= k-1)
// (Hollander & Wolfe, Nonparametric Statistical Methods, §4.3; Lehmann,
// Nonparametrics, §2.6). Ordering ratios is ordering log differences, as log
// is monotone, so no logarithm is taken and exp(log(r)) rounding is avoided.
//
// Ties in the data are ignored when choosing k (the untied distribution, as
// is usual for this interval); the U test's p-value does correct for them.

// exactLimit is the largest sample size on either side for which the exact
// U distribution gives k; above it, the normal approximation with continuity
// correction does. It matches stats.MannWhitneyExactLimit, the limit
// benchmath's U test uses for its p-value.
const exactLimit = 50

// cutoff is the rank k of the interval's lower end and the interval's
// actual coverage. k == 0 means no finite interval exists at that level.
type cutoff struct {
	k        int
	coverage float64
}

type cutoffKey struct {
	m, n       int
	confidence float64
}

// cutoffCache holds the exact cut-offs, which take milliseconds for 50+50;
// at most 50·50/2 sizes per confidence level.
var cutoffCache sync.Map // cutoffKey -> cutoff

// mosesCutoff returns k for samples of sizes m and n at the given confidence.
func mosesCutoff(m, n int, confidence float64) cutoff {
	if m > n {
		m, n = n, m // the U distribution is symmetric in the two sizes
	}
	tail := (1 - confidence) / 2
	if n > exactLimit {
		return normalCutoff(m, n, tail)
	}
	key := cutoffKey{m, n, confidence}
	if c, ok := cutoffCache.Load(key); ok {
		return c.(cutoff)
	}
	c := exactCutoff(m, n, tail)
	cutoffCache.Store(key, c)
	return c
}

// exactCutoff finds k from the exact distribution of U with no ties: the
// smallest u with P(U <= u) > tail is the largest k with P(U <= k-1) <= tail.
func exactCutoff(m, n int, tail float64) cutoff {
	counts := uCounts(m, n)
	var total float64
	for _, c := range counts {
		total += c
	}
	const slack = 1e-9 // so that a tail probability equal to α/2 counts as within it
	var cdf float64
	for u, c := range counts {
		if (cdf+c)/total > tail*(1+slack) {
			return cutoff{k: u, coverage: 1 - 2*cdf/total}
		}
		cdf += c
	}
	return cutoff{} // unreachable for tail < 0.5
}

// uCounts returns, for u = 0 … m·n, how many of the C(m+n, m) orderings of
// m values of one sample among n of the other have U = u. The recurrence is
// Mann and Whitney's (1947): the largest of the i+j values is either from
// the first sample, and exceeds all j of the second, or from the second:
// f(i, j; u) = f(i-1, j; u-j) + f(i, j-1; u). Only additions of positive
// counts, so float64 keeps them to full relative precision (C(100, 50) is
// about 1e29, far below overflow).
func uCounts(m, n int) []float64 {
	// f[j] holds f(i, j; ·) for the current i, updated in place from
	// f(i-1, j; ·): u runs down, so f[j][u-j] is still row i-1's.
	f := make([][]float64, n+1)
	for j := range f {
		f[j] = make([]float64, m*j+1)
		f[j][0] = 1 // f(0, j): one ordering, U = 0
	}
	for i := 1; i <= m; i++ {
		for j := 1; j <= n; j++ {
			cur, left := f[j], f[j-1]
			for u := i * j; u >= 0; u-- {
				var c float64
				if u >= j {
					c = cur[u-j]
				}
				if u < len(left) {
					c += left[u]
				}
				cur[u] = c
			}
		}
	}
	return f[n]
}

// normalCutoff is k from the normal approximation of U with continuity
// correction: P(U <= k-1) ≈ Φ((k - 1/2 - mn/2)/σ) <= tail gives
// k = ⌊mn/2 + 1/2 - z·σ⌋, σ² = mn(m+n+1)/12.
func normalCutoff(m, n int, tail float64) cutoff {
	mn := float64(m) * float64(n)
	mu := mn / 2
	sigma := math.Sqrt(mn * float64(m+n+1) / 12)
	z := -normalQuantile(tail)
	k := int(math.Floor(mu + 0.5 - z*sigma))
	if k <= 0 {
		return cutoff{}
	}
	return cutoff{k: k, coverage: 1 - 2*normalCDF((float64(k)-0.5-mu)/sigma)}
}

func normalCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

func normalQuantile(p float64) float64 { return -math.Sqrt2 * math.Erfcinv(2*p) }

// ratioCI returns the Moses interval on step/base and its coverage, or
// ok == false if it has no finite bounds. base and step must be sorted
// ascending, non-negative, and not both contain a zero (0/0 has no order):
// a zero in step is a ratio of 0, a zero in base a ratio of +Inf.
func ratioCI(base, step []float64, confidence float64) (lo, hi, coverage float64, ok bool) {
	m, n := len(base), len(step)
	c := mosesCutoff(m, n, confidence)
	if c.k == 0 {
		return 0, 0, 0, false
	}
	lo = kthRatio(base, step, c.k)
	hi = kthRatio(base, step, m*n+1-c.k)
	if math.IsInf(hi, 0) {
		return 0, 0, 0, false
	}
	return lo, hi, c.coverage, true
}

// kthRatio returns the k-th smallest (from 1) of the m·n ratios
// step[j]/base[i] exactly, without forming them: it bisects on the bit
// pattern of θ — for non-negative float64s, ordering the bits orders the
// values, up to +Inf — for the smallest θ with at least k ratios <= θ.
// Counting takes one merge-like pass, so the whole costs O(64·(m+n)) time
// and no memory, where sorting the ratios would take O(mn) of both.
func kthRatio(base, step []float64, k int) float64 {
	lo, hi := uint64(0), math.Float64bits(math.Inf(1))
	for lo < hi {
		mid := lo + (hi-lo)/2
		if countAtMost(base, step, math.Float64frombits(mid)) >= k {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return math.Float64frombits(lo)
}

// countAtMost counts the pairs with step[j]/base[i] <= θ. For a fixed i the
// ratio grows with j, so the count is a prefix of step; as base[i] grows,
// each ratio shrinks (IEEE division is monotone in each operand), so the
// prefix only lengthens and one pointer serves every i.
func countAtMost(base, step []float64, θ float64) int {
	count, j := 0, 0
	for _, x := range base {
		for j < len(step) && step[j]/x <= θ {
			j++
		}
		count += j
	}
	return count
}
