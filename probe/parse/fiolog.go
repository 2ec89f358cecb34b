package parse

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/perfbisect/perfbisect/probe"
)

// fioLog reads a fio --write_iops_log, --write_bw_log or --write_lat_log
// file written with --log_avg_msec=1000: "time_ms, value, direction, bs,
// offset[, prio]", one line per direction per second. A second is complete
// when a line of a later second comes, or the input ends.
type fioLog struct {
	kind     string // iops, bw or lat
	cur      probe.Sample
	curN     int
	curText  string
	pending  bool
	seen     map[int64]bool // directions seen in cur's second
	dups     int
	latDir   int64 // a lat log's direction: the first seen; -1 before
	otherDir int   // lat log lines of another direction, left out
}

func newFioLog(r *Result, format string) *fioLog {
	p := &fioLog{kind: strings.TrimSuffix(strings.TrimPrefix(format, "fio-"), "-log"), seen: map[int64]bool{}, latDir: -1}
	if p.kind == "log" {
		p.kind = "iops"
		r.note("read as an iops log (--write_iops_log); a latency or bandwidth log cannot be told apart by its content: pass fio-lat-log or fio-bw-log")
	}
	return p
}

func (p *fioLog) line(r *Result, n int, raw string) []probe.Sample {
	l := strings.TrimSpace(raw)
	if l == "" {
		return nil
	}
	f := strings.Split(l, ",")
	if len(f) != 5 && len(f) != 6 {
		r.bad(n, l, "not a fio log line (time_ms, value, direction, bs, offset[, prio])")
		return nil
	}
	ms, err1 := strconv.ParseInt(strings.TrimSpace(f[0]), 10, 64)
	v, err2 := strconv.ParseFloat(strings.TrimSpace(f[1]), 64)
	dir, err3 := strconv.ParseInt(strings.TrimSpace(f[2]), 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || ms < 0 || ms > 1e15 || !finite(v) {
		r.bad(n, l, "a number that does not parse")
		return nil
	}
	if p.kind == "lat" {
		// Averages of reads and writes cannot be combined without their
		// counts, which the log does not have: one direction is read.
		if p.latDir < 0 {
			p.latDir = dir
		}
		if dir != p.latDir {
			p.otherDir++
			return nil
		}
	}
	sec := int((ms + 500) / 1000)
	var out []probe.Sample
	switch {
	case p.pending && sec < p.cur.Sec:
		r.bad(n, l, fmt.Sprintf("second %d does not follow second %d", sec, p.cur.Sec))
		return nil
	case p.pending && sec == p.cur.Sec && p.seen[dir]:
		p.dups++
		r.bad(n, l, fmt.Sprintf("a second entry for second %d", sec))
		return nil
	case !p.pending || sec > p.cur.Sec:
		out = p.end(r)
		p.cur, p.pending = probe.Sample{Sec: sec}, true
		clear(p.seen)
	}
	p.seen[dir] = true
	p.curN, p.curText = n, l
	switch p.kind {
	case "iops":
		p.cur.OpsPerS += v
		p.cur.Real = probe.FieldOps
	case "bw":
		p.cur.MiBPerS += v / 1024 // KiB/s
		p.cur.Real = probe.FieldMiB
	case "lat":
		p.cur.AvgMs = v / 1e6 // ns
		p.cur.Real = probe.FieldAvg
	}
	return out
}

// end completes the second being read.
func (p *fioLog) end(r *Result) []probe.Sample {
	if !p.pending {
		return nil
	}
	p.pending = false
	if !r.add(p.curN, p.curText, p.cur) {
		return nil
	}
	return []probe.Sample{p.cur}
}

func (p *fioLog) finish(r *Result) {
	if p.dups > 0 {
		r.note("%d seconds had more than one entry: the log must be written with --log_avg_msec=1000", p.dups)
	}
	if p.kind == "lat" {
		r.note("a fio latency log holds the mean latency of each second (avg_ms), no throughput: import the iops log (--write_iops_log) for operations per second")
		if p.otherDir > 0 {
			r.note("%d lines of another direction than the first (%d) left out: means of reads and writes cannot be combined without their counts", p.otherDir, p.latDir)
		}
	}
}
