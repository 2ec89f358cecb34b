package parse

import (
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
	reSbAvg   = regexp.MustCompile(`^avg:\s+([0-9.]+)(?:ms)?$`)
	reSbMax   = regexp.MustCompile(`^max:\s+([0-9.]+)(?:ms)?$`)
	reSbPct   = regexp.MustCompile(`^(?:approx\.\s+)?([0-9.]+)(?:th)? percentile:\s+([0-9.]+)(?:ms)?$`)
	reSbHead0 = regexp.MustCompile(`^sysbench 0\.`)
)

// pctField sets the Sample field of percentile p to v and returns it, or
// returns 0 when Sample has no field for p.
func pctField(p float64, v float64, s *probe.Sample) probe.Field {
	switch p {
	case 50:
		s.P50Ms = v
		return probe.FieldP50
	case 95:
		s.P95Ms = v
		return probe.FieldP95
	case 99:
		s.P99Ms = v
		return probe.FieldP99
	}
	return 0
}

// sysbench reads sysbench 1.x and 0.5: a line per report interval, then a
// final report.
type sysbench struct {
	pct     float64 // the percentile of the per-second latency, once seen; -1 before
	prevSec int

	// The final report, as far as read.
	sum              probe.Summary
	haveTx, haveTime bool
	sumPct, sumPctMs float64
	haveAvg, haveMax bool
}

func (p *sysbench) line(r *Result, n int, raw string) []probe.Sample {
	l := strings.TrimSpace(raw)
	if reSbHead0.MatchString(l) {
		r.Tool = FormatSysbench05
	}
	if !reSysbenchAny.MatchString(l) {
		p.summaryLine(l)
		return nil
	}
	if reSysbenchQueue.MatchString(l) {
		return nil // --rate: the event queue, no field for it
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
		return nil
	}
	sec, err1 := strconv.Atoi(secS)
	tps, err2 := strconv.ParseFloat(tpsS, 64)
	pc, err3 := strconv.ParseFloat(pS, 64)
	lat, err4 := strconv.ParseFloat(latS, 64)
	errs, err5 := strconv.ParseFloat(errS, 64)
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || err5 != nil || !finite(tps, pc, lat, errs) {
		r.bad(n, l, "a number that does not parse")
		return nil
	}
	// err/s is a rate over the report interval: the time since the last
	// line, whether or not that line was kept.
	dt := max(sec-p.prevSec, 1)
	p.prevSec = sec
	if p.pct >= 0 && pc != p.pct {
		r.bad(n, l, "latency percentile changed from "+strconv.FormatFloat(p.pct, 'g', -1, 64)+"%")
		return nil
	}
	s := probe.Sample{Sec: sec, OpsPerS: tps}
	f := pctField(pc, lat, &s)
	if p.pct < 0 {
		p.pct = pc
		if f == 0 {
			r.note("sysbench reported the %g%% latency percentile, which has no Sample field: left out (use --percentile=95, 99 or 50)", pc)
		}
	}
	s.Errors = toCount(errs * float64(dt))
	s.Real = probe.FieldOps | f | probe.FieldErrors
	if !r.add(n, l, s) {
		return nil
	}
	return []probe.Sample{s}
}

// summaryLine reads a line of sysbench's final report.
func (p *sysbench) summaryLine(l string) {
	num := func(s string) (float64, bool) {
		v, err := strconv.ParseFloat(s, 64)
		return v, err == nil && finite(v)
	}
	if m := reSbTx.FindStringSubmatch(l); m != nil {
		ops, err := strconv.ParseInt(m[1], 10, 64)
		rate, ok := num(m[2])
		if err == nil && ok && ops >= 0 {
			p.sum.Ops, p.sum.OpsPerS, p.haveTx = ops, rate, true
		}
	} else if m := reSbErr.FindStringSubmatch(l); m != nil {
		if v, err := strconv.ParseInt(m[1], 10, 64); err == nil && v >= 0 {
			p.sum.Errors = v
		}
	} else if m := reSbTime.FindStringSubmatch(l); m != nil {
		if v, ok := num(m[1]); ok {
			p.sum.DurationS, p.haveTime = v, true
		}
	} else if m := reSbAvg.FindStringSubmatch(l); m != nil {
		if v, ok := num(m[1]); ok {
			p.sum.AvgMs, p.haveAvg = v, true
		}
	} else if m := reSbMax.FindStringSubmatch(l); m != nil {
		if v, ok := num(m[1]); ok {
			p.sum.MaxMs, p.haveMax = v, true
		}
	} else if m := reSbPct.FindStringSubmatch(l); m != nil {
		pc, ok1 := num(m[1])
		v, ok2 := num(m[2])
		if ok1 && ok2 {
			p.sumPct, p.sumPctMs = pc, v
		}
	}
}

func (p *sysbench) end(*Result) []probe.Sample { return nil }

func (p *sysbench) finish(r *Result) {
	if !p.haveTx || !p.haveTime {
		return
	}
	sum := p.sum
	sum.Ended = probe.EndCompleted
	sum.Workload = probe.Spec{Workload: r.Tool}
	sum.Real = probe.FieldOps | probe.FieldErrors
	if p.haveAvg {
		sum.Real |= probe.FieldAvg
	}
	if p.haveMax {
		sum.Real |= probe.FieldMax
	}
	if p.sumPct > 0 {
		var s probe.Sample
		f := pctField(p.sumPct, p.sumPctMs, &s)
		if f == 0 {
			r.note("sysbench's final report gives the %g%% latency percentile: no Summary field for it", p.sumPct)
		}
		sum.P50Ms, sum.P95Ms, sum.P99Ms = s.P50Ms, s.P95Ms, s.P99Ms
		sum.Real |= f
	}
	r.Summary = &sum
	r.note("summary from sysbench's final report: %s", sum.Real)
}
