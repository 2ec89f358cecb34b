package parse

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/perfbisect/perfbisect/probe"
)

var (
	// "progress: 1.0 s, 1234.5 tps, lat 0.810 ms stddev 0.123, 0 failed[, lag 0.1 ms[, 0 skipped]][, 0 retried, 0 retries]"
	rePgProgress = regexp.MustCompile(`^progress: ([0-9.]+) s, ([0-9.]+) tps, lat ([0-9.]+) ms stddev [^,]+((?:, .*)?)$`)
	rePgFailed   = regexp.MustCompile(`, (\d+) failed\b`)
	rePgSkipped  = regexp.MustCompile(`, (\d+) skipped\b`)
	rePgRetried  = regexp.MustCompile(`, (\d+) retried\b`)

	rePgDuration = regexp.MustCompile(`^duration: (\d+) s$`)
	rePgTx       = regexp.MustCompile(`^number of transactions actually processed: (\d+)`)
	rePgFailedTx = regexp.MustCompile(`^number of failed transactions: (\d+)`)
	rePgTPS      = regexp.MustCompile(`^tps = ([0-9.]+) \((?:without initial connection time|excluding connections establishing)\)`)
	rePgLatAvg   = regexp.MustCompile(`^latency average = ([0-9.]+) ms`)
)

// pgbench reads pgbench's progress lines (-P 1, on its stderr) and its
// final report (on its stdout).
type pgbench struct {
	haveFailed, epoch bool
	base              float64
	skipped, retried  int64

	// The final report, as far as read.
	sum                              probe.Summary
	haveTx, haveDur, haveTPS, haveFx bool
	latAvg                           float64 // -1 until read
}

func (p *pgbench) line(r *Result, n int, raw string) []probe.Sample {
	l := strings.TrimSpace(raw)
	if !strings.HasPrefix(l, "progress: ") {
		p.summaryLine(l)
		return nil
	}
	m := rePgProgress.FindStringSubmatch(l)
	if m == nil {
		r.bad(n, l, "not a pgbench progress line")
		return nil
	}
	t, err1 := strconv.ParseFloat(m[1], 64)
	tps, err2 := strconv.ParseFloat(m[2], 64)
	lat, err3 := strconv.ParseFloat(m[3], 64)
	if err1 != nil || err2 != nil || err3 != nil || !finite(t, tps, lat) || t > 1e15 {
		r.bad(n, l, "a number that does not parse")
		return nil
	}
	if len(r.Samples) == 0 && !p.epoch && t >= 1e8 {
		// --progress-timestamp: Unix time; the first report is taken as second 1.
		p.epoch, p.base = true, t-1
		r.note("pgbench --progress-timestamp: times are Unix times, made relative with the first report as second 1")
	}
	if p.epoch {
		t -= p.base
	}
	// "lat" is the mean latency of the transactions of the interval.
	s := probe.Sample{Sec: int(math.Round(t)), OpsPerS: tps, AvgMs: lat, Real: probe.FieldOps | probe.FieldAvg}
	rest := m[4]
	var skipped, retried int64
	if f := rePgFailed.FindStringSubmatch(rest); f != nil {
		v, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			r.bad(n, l, "a number that does not parse")
			return nil
		}
		s.Errors = v
		s.Real |= probe.FieldErrors
	}
	if f := rePgSkipped.FindStringSubmatch(rest); f != nil {
		skipped, _ = strconv.ParseInt(f[1], 10, 64)
	}
	if f := rePgRetried.FindStringSubmatch(rest); f != nil {
		retried, _ = strconv.ParseInt(f[1], 10, 64)
	}
	if !r.add(n, l, s) {
		return nil
	}
	p.haveFailed = p.haveFailed || s.Real.Has(probe.FieldErrors)
	p.skipped += skipped
	p.retried += retried
	return []probe.Sample{s}
}

func (p *pgbench) summaryLine(l string) {
	if m := rePgDuration.FindStringSubmatch(l); m != nil {
		if v, err := strconv.ParseFloat(m[1], 64); err == nil && finite(v) {
			p.sum.DurationS, p.haveDur = v, true
		}
	} else if m := rePgTx.FindStringSubmatch(l); m != nil {
		if v, err := strconv.ParseInt(m[1], 10, 64); err == nil {
			p.sum.Ops, p.haveTx = v, true
		}
	} else if m := rePgFailedTx.FindStringSubmatch(l); m != nil {
		if v, err := strconv.ParseInt(m[1], 10, 64); err == nil {
			p.sum.Errors, p.haveFx = v, true
		}
	} else if m := rePgTPS.FindStringSubmatch(l); m != nil {
		if v, err := strconv.ParseFloat(m[1], 64); err == nil && finite(v) {
			p.sum.OpsPerS, p.haveTPS = v, true
		}
	} else if m := rePgLatAvg.FindStringSubmatch(l); m != nil {
		if v, err := strconv.ParseFloat(m[1], 64); err == nil && finite(v) {
			p.latAvg = v
		}
	}
}

func (p *pgbench) end(*Result) []probe.Sample { return nil }

func (p *pgbench) finish(r *Result) {
	if !p.haveFailed && len(r.Samples) > 0 {
		r.note("pgbench before 15 reports no failed transactions per second: errors not known")
	}
	if p.skipped > 0 {
		r.note("%d transactions skipped (--latency-limit), not counted as errors", p.skipped)
	}
	if p.retried > 0 {
		r.note("%d transactions retried", p.retried)
	}
	if !p.haveTx || !(p.haveDur || p.haveTPS) {
		return
	}
	sum := p.sum
	if !p.haveDur && sum.OpsPerS > 0 {
		sum.DurationS = float64(sum.Ops) / sum.OpsPerS
	}
	if !p.haveTPS && sum.DurationS > 0 {
		sum.OpsPerS = float64(sum.Ops) / sum.DurationS
	}
	sum.Ended = probe.EndCompleted
	sum.Workload = probe.Spec{Workload: r.Tool}
	sum.Real = probe.FieldOps
	if p.haveFx {
		sum.Real |= probe.FieldErrors
	}
	if p.latAvg >= 0 {
		sum.AvgMs = p.latAvg
		sum.Real |= probe.FieldAvg
	}
	r.Summary = &sum
	r.note("summary from pgbench's final report: %s; pgbench gives no latency percentiles", sum.Real)
}
