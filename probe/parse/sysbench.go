package parse

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/perfbisect/perfbisect/probe"
)

var (
	// sysbench 1.x: "[ 1s ] thds: 4 tps: 1234.56 qps: ... lat (ms,95%): 12.34 err/s: 0.00 reconn/s: 0.00";
	// the Lua reporter writes "err/s 0.00", and --rate may add text at the end.
	reSysbench1 = regexp.MustCompile(`^\[\s*(\d+)s\s*\]\s*thds:\s*\d+\s+tps:\s*([0-9.]+)\s+qps:.*?\blat \(ms,([0-9.]+)%\):\s*([0-9.]+)\s+err/s:?\s*([0-9.]+)`)
	// sysbench 0.5: "[   2s] threads: 4, tps: 1234.56, reads: ..., writes: ..., response time: 12.34ms (95%), errors: 0.00, reconnects:  0.00"
	reSysbench0     = regexp.MustCompile(`^\[\s*(\d+)s\s*\]\s*threads:\s*\d+,\s*tps:\s*([0-9.]+),.*?response time:\s*([0-9.]+)ms\s*\(([0-9.]+)%\),\s*errors:\s*([0-9.]+)`)
	reSysbenchAny   = regexp.MustCompile(`^\[\s*\d+s\s*\]`)
	reSysbenchQueue = regexp.MustCompile(`^\[\s*\d+s\s*\]\s*queue length:\s*\d+,\s*concurrency:\s*\d+\s*$`)

	reSbTx    = regexp.MustCompile(`^transactions:\s+(\d+)\s+\(([0-9.]+) per sec\.\)`)
	reSbErr   = regexp.MustCompile(`^ignored errors:\s+(\d+)`)
	reSbTime  = regexp.MustCompile(`^total time:\s+([0-9.]+)s$`)
	reSbMax   = regexp.MustCompile(`^max:\s+([0-9.]+)(?:ms)?$`)
	reSbPct   = regexp.MustCompile(`^(?:approx\.\s+)?([0-9.]+)(?:th)? percentile:\s+([0-9.]+)(?:ms)?$`)
	reSbHead0 = regexp.MustCompile(`^sysbench 0\.`)
)

// pctField sets the Sample field of percentile p to v and names it, or
// returns "" when Sample has no field for p.
func pctField(p float64, v float64, s *probe.Sample) string {
	switch p {
	case 50:
		s.P50Ms = v
		return FieldP50
	case 95:
		s.P95Ms = v
		return FieldP95
	case 99:
		s.P99Ms = v
		return FieldP99
	}
	return ""
}

func parseSysbench(data []byte) *Result {
	r := &Result{Tool: FormatSysbench}
	pct := -1.0 // the percentile of the per-second latency, once seen
	latField := ""
	prevSec := 0
	var sum probe.Summary
	var haveTx, haveTime bool
	var sumPct float64
	for i, raw := range splitLines(data) {
		n := i + 1
		l := strings.TrimSpace(raw)
		if reSbHead0.MatchString(l) {
			r.Tool = FormatSysbench05
		}
		if !reSysbenchAny.MatchString(l) {
			sysbenchSummaryLine(l, &sum, &haveTx, &haveTime, &sumPct)
			continue
		}
		if reSysbenchQueue.MatchString(l) {
			continue // --rate: the event queue, no field for it
		}
		m := reSysbench1.FindStringSubmatch(l)
		var secS, tpsS, pS, latS, errS string
		if m != nil {
			secS, tpsS, pS, latS, errS = m[1], m[2], m[3], m[4], m[5]
		} else if m = reSysbench0.FindStringSubmatch(l); m != nil {
			r.Tool = FormatSysbench05
			secS, tpsS, latS, pS, errS = m[1], m[2], m[3], m[4], m[5]
		} else {
			r.bad(n, l, "not a sysbench per-second line")
			continue
		}
		sec, err1 := strconv.Atoi(secS)
		tps, err2 := strconv.ParseFloat(tpsS, 64)
		p, err3 := strconv.ParseFloat(pS, 64)
		lat, err4 := strconv.ParseFloat(latS, 64)
		errs, err5 := strconv.ParseFloat(errS, 64)
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil || err5 != nil || !finite(tps, p, lat, errs) {
			r.bad(n, l, "a number that does not parse")
			continue
		}
		if pct >= 0 && p != pct {
			r.bad(n, l, "latency percentile changed from "+strconv.FormatFloat(pct, 'g', -1, 64)+"%")
			continue
		}
		s := probe.Sample{Sec: sec, OpsPerS: tps}
		f := pctField(p, lat, &s)
		if pct < 0 {
			pct, latField = p, f
			if f == "" {
				r.note("sysbench reported the %g%% latency percentile, which has no Sample field: left out (use --percentile=95, 99 or 50)", p)
			}
		}
		dt := sec - prevSec
		if dt < 1 {
			dt = 1
		}
		// err/s is a rate over the report interval.
		s.Errors = toCount(errs * float64(dt))
		before := len(r.Samples)
		r.add(n, l, s)
		if len(r.Samples) > before {
			prevSec = sec
		}
	}
	r.Real = []string{FieldOpsPerS}
	if latField != "" {
		r.Real = append(r.Real, latField)
	}
	r.Real = append(r.Real, FieldErrors)
	if haveTx && haveTime {
		sum.Ended = probe.EndCompleted
		sum.Workload = probe.Spec{Workload: r.Tool}
		if sumPct > 0 {
			var s probe.Sample
			switch pctField(sumPct, 0, &s) {
			case FieldP50:
				sum.P50Ms, sum.P95Ms = sum.P95Ms, 0
			case FieldP99:
				sum.P99Ms, sum.P95Ms = sum.P95Ms, 0
			case "":
				r.note("sysbench's final report gives the %g%% latency percentile: no Summary field for it", sumPct)
				sum.P95Ms = 0
			}
		}
		r.Summary = &sum
		r.note("summary from sysbench's final report: duration, transactions, transactions/s, ignored errors, latency max and the %g%% percentile", sumPct)
	}
	return r
}

// sysbenchSummaryLine reads a line of sysbench's final report into sum; the
// percentile goes to P95Ms until the caller moves it.
func sysbenchSummaryLine(l string, sum *probe.Summary, haveTx, haveTime *bool, pct *float64) {
	num := func(s string) (float64, bool) {
		v, err := strconv.ParseFloat(s, 64)
		return v, err == nil && finite(v)
	}
	if m := reSbTx.FindStringSubmatch(l); m != nil {
		ops, err := strconv.ParseInt(m[1], 10, 64)
		rate, ok := num(m[2])
		if err == nil && ok && ops >= 0 {
			sum.Ops, sum.OpsPerS, *haveTx = ops, rate, true
		}
	} else if m := reSbErr.FindStringSubmatch(l); m != nil {
		if v, err := strconv.ParseInt(m[1], 10, 64); err == nil && v >= 0 {
			sum.Errors = v
		}
	} else if m := reSbTime.FindStringSubmatch(l); m != nil {
		if v, ok := num(m[1]); ok {
			sum.DurationS, *haveTime = v, true
		}
	} else if m := reSbMax.FindStringSubmatch(l); m != nil {
		if v, ok := num(m[1]); ok {
			sum.MaxMs = v
		}
	} else if m := reSbPct.FindStringSubmatch(l); m != nil {
		p, ok1 := num(m[1])
		v, ok2 := num(m[2])
		if ok1 && ok2 && !math.IsNaN(p) {
			*pct, sum.P95Ms = p, v
		}
	}
}
