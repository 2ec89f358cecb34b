package parse

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/perfbisect/perfbisect/probe"
)

type fioLat struct {
	Max        float64            `json:"max"`
	N          float64            `json:"N"`
	Percentile map[string]float64 `json:"percentile"`
}

type fioDir struct {
	IOBytes  float64 `json:"io_bytes"`
	TotalIOs float64 `json:"total_ios"`
	ClatNs   fioLat  `json:"clat_ns"`
}

type fioJob struct {
	Name       string  `json:"jobname"`
	Error      int     `json:"error"`
	Elapsed    float64 `json:"elapsed"`     // seconds
	JobRuntime float64 `json:"job_runtime"` // ms
	Read       fioDir  `json:"read"`
	Write      fioDir  `json:"write"`
	Sync       struct {
		LatNs fioLat `json:"lat_ns"`
	} `json:"sync"`
}

type fioDoc struct {
	Jobs []fioJob `json:"jobs"`
}

// fioTotals are the cumulative numbers of one report.
type fioTotals struct {
	ms, ios, bytes float64
}

func (d *fioDoc) totals() (fioTotals, bool) {
	var t fioTotals
	for _, j := range d.Jobs {
		t.ios += j.Read.TotalIOs + j.Write.TotalIOs
		t.bytes += j.Read.IOBytes + j.Write.IOBytes
		t.ms = math.Max(t.ms, j.JobRuntime)
	}
	if t.ms == 0 && len(d.Jobs) > 0 {
		t.ms = d.Jobs[0].Elapsed * 1000
	}
	return t, len(d.Jobs) > 0 && finite(t.ms, t.ios, t.bytes) && t.ms < 1e15
}

// parseFioJSON reads fio --output-format=json, one final report or the
// concatenated reports of --status-interval, whose numbers are cumulative.
func parseFioJSON(data []byte) *Result {
	r := &Result{Tool: FormatFioJSON, Real: []string{FieldOpsPerS, FieldMiBPerS}}
	lines := splitLines(data)
	// A report starts at a line "{" in the first column (nested objects are
	// indented); what precedes the first is fio's chatter.
	var starts []int
	for i, l := range lines {
		if strings.TrimRight(l, " \t") == "{" {
			starts = append(starts, i)
		}
	}
	if len(starts) == 0 && len(bytes.TrimSpace(data)) > 0 {
		r.bad(1, firstLine(data), "no fio JSON report")
	}
	var docs []fioDoc
	var docLine []int
	for k, s := range starts {
		e := len(lines)
		if k+1 < len(starts) {
			e = starts[k+1]
		}
		var d fioDoc
		if err := json.NewDecoder(strings.NewReader(strings.Join(lines[s:e], "\n"))).Decode(&d); err != nil {
			r.bad(s+1, "{", "not a fio JSON report: "+err.Error())
			continue
		}
		if _, ok := d.totals(); !ok {
			r.bad(s+1, "{", "a fio JSON report without jobs or with unusable numbers")
			continue
		}
		docs = append(docs, d)
		docLine = append(docLine, s+1)
	}
	if len(docs) == 1 {
		r.note("one fio report only (a final report, not --status-interval=1): a summary, no per-second samples; for those, run fio with --status-interval=1 or import its --write_iops_log with --log_avg_msec=1000")
	}
	var prev fioTotals
	var last *fioDoc
	for k := range docs {
		t, _ := docs[k].totals()
		if t.ios < prev.ios || t.bytes < prev.bytes || t.ms < prev.ms {
			r.bad(docLine[k], "{", "cumulative numbers went down: not a report of the same run")
			continue
		}
		last = &docs[k]
		dt := (t.ms - prev.ms) / 1000
		if dt == 0 {
			if t.ios != prev.ios {
				r.bad(docLine[k], "{", "operations without time")
			}
			continue // the same report again
		}
		if len(docs) > 1 {
			s := probe.Sample{
				Sec:     int(math.Round(t.ms / 1000)),
				OpsPerS: (t.ios - prev.ios) / dt,
				MiBPerS: (t.bytes - prev.bytes) / dt / (1 << 20),
			}
			before := len(r.Samples)
			r.add(docLine[k], "{", s)
			if len(r.Samples) == before {
				continue
			}
		}
		prev = t
	}
	if len(docs) > 1 {
		r.note("fio reports are cumulative: per-interval operations and MiB/s are differences of consecutive reports; latency percentiles cannot be differenced, so samples have none")
	}
	if last != nil {
		r.Summary = fioSummary(last, r)
	}
	return r
}

func fioSummary(d *fioDoc, r *Result) *probe.Summary {
	t, _ := d.totals()
	sum := &probe.Summary{
		DurationS: t.ms / 1000,
		Ops:       toCount(t.ios),
		Ended:     probe.EndCompleted,
		Workload:  probe.Spec{Workload: FormatFioJSON},
	}
	if sum.DurationS > 0 {
		sum.OpsPerS = t.ios / sum.DurationS
		sum.MiBPerS = t.bytes / sum.DurationS / (1 << 20)
	}
	var errs []string
	for _, j := range d.Jobs {
		if j.Error != 0 {
			errs = append(errs, fmt.Sprintf("job %s: error %d", j.Name, j.Error))
		}
		for _, dir := range []fioDir{j.Read, j.Write} {
			if finite(dir.ClatNs.Max) {
				sum.MaxMs = math.Max(sum.MaxMs, dir.ClatNs.Max/1e6)
			}
		}
	}
	if len(errs) > 0 {
		sum.Ended = probe.EndFailed
		sum.Error = "fio " + strings.Join(errs, "; ")
	}
	pcts := "latency percentiles left out: fio does not merge them across jobs (use --group_reporting)"
	if len(d.Jobs) == 1 {
		j := d.Jobs[0]
		dir, name := j.Write, "write"
		if dir.ClatNs.N == 0 && j.Read.ClatNs.N > 0 {
			dir, name = j.Read, "read"
		}
		var s probe.Sample
		for k, v := range dir.ClatNs.Percentile {
			p, err := strconv.ParseFloat(k, 64)
			if err == nil && finite(v) {
				pctField(p, v/1e6, &s)
			}
		}
		sum.P50Ms, sum.P95Ms, sum.P99Ms = s.P50Ms, s.P95Ms, s.P99Ms
		pcts = "latency percentiles and max are the " + name + " completion latency (clat_ns) of the final report, over the whole run"
		if l := j.Sync.LatNs; l.N > 0 {
			var ss probe.Sample
			for k, v := range l.Percentile {
				if p, err := strconv.ParseFloat(k, 64); err == nil && finite(v) {
					pctField(p, v/1e6, &ss)
				}
			}
			pcts += fmt.Sprintf("; the fsync/fdatasync that follows each write is separate in fio (sync.lat_ns: p50 %.3f ms, p99 %.3f ms, max %.3f ms) and not included", ss.P50Ms, ss.P99Ms, l.Max/1e6)
		}
	}
	r.note("summary from fio's last report: %s", pcts)
	return sum
}

// parseFioLog reads a fio --write_iops_log, --write_bw_log or --write_lat_log
// file written with --log_avg_msec=1000: "time_ms, value, direction, bs, offset[, prio]".
func parseFioLog(data []byte, format string) *Result {
	r := &Result{Tool: FormatFioLog}
	kind := strings.TrimSuffix(strings.TrimPrefix(format, "fio-"), "-log")
	switch kind {
	case "log":
		kind = "iops"
		r.note("read as an iops log (--write_iops_log); a latency or bandwidth log cannot be told apart by its content: pass fio-lat-log or fio-bw-log")
		r.Real = []string{FieldOpsPerS}
	case "iops":
		r.Real = []string{FieldOpsPerS}
	case "bw":
		r.Real = []string{FieldMiBPerS}
	}
	cur := probe.Sample{Sec: -1}
	seen := map[int64]bool{}
	dups := 0
	flush := func(n int, text string) {
		if cur.Sec >= 0 && kind != "lat" {
			r.add(n, text, cur)
		}
	}
	lastN, lastText := 0, ""
	for i, raw := range splitLines(data) {
		n := i + 1
		l := strings.TrimSpace(raw)
		if l == "" {
			continue
		}
		f := strings.Split(l, ",")
		if len(f) != 5 && len(f) != 6 {
			r.bad(n, l, "not a fio log line (time_ms, value, direction, bs, offset[, prio])")
			continue
		}
		ms, err1 := strconv.ParseInt(strings.TrimSpace(f[0]), 10, 64)
		v, err2 := strconv.ParseFloat(strings.TrimSpace(f[1]), 64)
		dir, err3 := strconv.ParseInt(strings.TrimSpace(f[2]), 10, 64)
		if err1 != nil || err2 != nil || err3 != nil || ms < 0 || ms > 1e15 || !finite(v) {
			r.bad(n, l, "a number that does not parse")
			continue
		}
		sec := int((ms + 500) / 1000)
		switch {
		case sec < cur.Sec:
			r.bad(n, l, fmt.Sprintf("second %d does not follow second %d", sec, cur.Sec))
			continue
		case sec == cur.Sec && seen[dir]:
			dups++
			r.bad(n, l, fmt.Sprintf("a second entry for second %d", sec))
			continue
		case sec > cur.Sec:
			flush(lastN, lastText)
			cur = probe.Sample{Sec: sec}
			clear(seen)
		}
		seen[dir] = true
		lastN, lastText = n, l
		switch kind {
		case "iops":
			cur.OpsPerS += v
		case "bw":
			cur.MiBPerS += v / 1024 // KiB/s
		}
	}
	flush(lastN, lastText)
	if dups > 0 {
		r.note("%d seconds had more than one entry: the log must be written with --log_avg_msec=1000", dups)
	}
	if kind == "lat" {
		r.note("a fio latency log holds the average latency of each second, and probe.Sample has percentiles and max, no average: no samples; import the iops log (--write_iops_log) for operations per second")
	}
	sort.Strings(r.Real)
	return r
}
