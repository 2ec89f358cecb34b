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

func parsePgbench(data []byte) *Result {
	r := &Result{Tool: FormatPgbench}
	var haveFailed, epoch bool
	var base float64
	var skipped, retried int64
	var latSum float64
	var latN int
	var sum probe.Summary
	var haveTx, haveDur, haveTPS bool
	latAvg := -1.0
	for i, raw := range splitLines(data) {
		n := i + 1
		l := strings.TrimSpace(raw)
		if !strings.HasPrefix(l, "progress: ") {
			pgbenchSummaryLine(l, &sum, &haveTx, &haveDur, &haveTPS, &latAvg)
			continue
		}
		m := rePgProgress.FindStringSubmatch(l)
		if m == nil {
			r.bad(n, l, "not a pgbench progress line")
			continue
		}
		t, err1 := strconv.ParseFloat(m[1], 64)
		tps, err2 := strconv.ParseFloat(m[2], 64)
		lat, err3 := strconv.ParseFloat(m[3], 64)
		if err1 != nil || err2 != nil || err3 != nil || !finite(t, tps, lat) || t > 1e15 {
			r.bad(n, l, "a number that does not parse")
			continue
		}
		if len(r.Samples) == 0 && len(r.Bad) == 0 && !epoch && t >= 1e8 {
			// --progress-timestamp: Unix time; the first report is taken as second 1.
			epoch, base = true, t-1
			r.note("pgbench --progress-timestamp: times are Unix times, made relative with the first report as second 1")
		}
		if epoch {
			t -= base
		}
		s := probe.Sample{Sec: int(math.Round(t)), OpsPerS: tps}
		rest := m[4]
		if f := rePgFailed.FindStringSubmatch(rest); f != nil {
			v, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				r.bad(n, l, "a number that does not parse")
				continue
			}
			s.Errors, haveFailed = v, true
		}
		if f := rePgSkipped.FindStringSubmatch(rest); f != nil {
			v, _ := strconv.ParseInt(f[1], 10, 64)
			skipped += v
		}
		if f := rePgRetried.FindStringSubmatch(rest); f != nil {
			v, _ := strconv.ParseInt(f[1], 10, 64)
			retried += v
		}
		before := len(r.Samples)
		r.add(n, l, s)
		if len(r.Samples) > before {
			latSum += lat
			latN++
		}
	}
	r.Real = []string{FieldOpsPerS}
	if haveFailed {
		r.Real = append(r.Real, FieldErrors)
	} else if len(r.Samples) > 0 {
		r.note("pgbench before 15 reports no failed transactions per second: errors not known")
	}
	if latN > 0 {
		r.note("pgbench reports the average latency per second (mean of seconds %.3f ms), not percentiles: no Sample field for it, percentiles left out", latSum/float64(latN))
	}
	if skipped > 0 {
		r.note("%d transactions skipped (--latency-limit), not counted as errors", skipped)
	}
	if retried > 0 {
		r.note("%d transactions retried", retried)
	}
	if haveTx && (haveDur || haveTPS) {
		if !haveDur && sum.OpsPerS > 0 {
			sum.DurationS = float64(sum.Ops) / sum.OpsPerS
		}
		if !haveTPS && sum.DurationS > 0 {
			sum.OpsPerS = float64(sum.Ops) / sum.DurationS
		}
		sum.Ended = probe.EndCompleted
		sum.Workload = probe.Spec{Workload: r.Tool}
		r.Summary = &sum
		msg := "summary from pgbench's final report: duration, transactions, tps, failed transactions; no latency percentiles"
		if latAvg >= 0 {
			msg += " (latency average " + strconv.FormatFloat(latAvg, 'f', 3, 64) + " ms has no field)"
		}
		r.note("%s", msg)
	}
	return r
}

func pgbenchSummaryLine(l string, sum *probe.Summary, haveTx, haveDur, haveTPS *bool, latAvg *float64) {
	if m := rePgDuration.FindStringSubmatch(l); m != nil {
		if v, err := strconv.ParseFloat(m[1], 64); err == nil && finite(v) {
			sum.DurationS, *haveDur = v, true
		}
	} else if m := rePgTx.FindStringSubmatch(l); m != nil {
		if v, err := strconv.ParseInt(m[1], 10, 64); err == nil {
			sum.Ops, *haveTx = v, true
		}
	} else if m := rePgFailedTx.FindStringSubmatch(l); m != nil {
		if v, err := strconv.ParseInt(m[1], 10, 64); err == nil {
			sum.Errors = v
		}
	} else if m := rePgTPS.FindStringSubmatch(l); m != nil {
		if v, err := strconv.ParseFloat(m[1], 64); err == nil && finite(v) {
			sum.OpsPerS, *haveTPS = v, true
		}
	} else if m := rePgLatAvg.FindStringSubmatch(l); m != nil {
		if v, err := strconv.ParseFloat(m[1], 64); err == nil && finite(v) {
			*latAvg = v
		}
	}
}
