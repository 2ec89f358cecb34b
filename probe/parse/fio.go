package parse

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/perfbisect/perfbisect/probe"
)

type fioLat struct {
	Max        float64            `json:"max"`
	Mean       *float64           `json:"mean"`
	N          float64            `json:"N"`
	Percentile map[string]float64 `json:"percentile"`
	// Bins is the latency histogram of --output-format=json+: the count of
	// operations per bucket, keyed by the bucket's latency in ns.
	Bins map[string]float64 `json:"bins"`
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

// hist is a latency histogram: operations per bucket, by latency in ns.
type hist map[int64]float64

// bins merges the completion-latency histograms of every job and direction
// (json+ output); false when a job has none or one is unreadable.
func (d *fioDoc) bins() (hist, bool) {
	h := hist{}
	for _, j := range d.Jobs {
		for _, dir := range []fioDir{j.Read, j.Write} {
			if dir.ClatNs.N > 0 && dir.ClatNs.Bins == nil {
				return nil, false
			}
			for k, v := range dir.ClatNs.Bins {
				ns, err := strconv.ParseInt(k, 10, 64)
				if err != nil || ns < 0 || !finite(v) {
					return nil, false
				}
				h[ns] += v
			}
		}
	}
	return h, len(d.Jobs) > 0
}

// minus is the histogram of the operations of h that are not in prev.
func (h hist) minus(prev hist) hist {
	d := make(hist, len(h))
	for k, v := range h {
		if v -= prev[k]; v != 0 {
			d[k] = v
		}
	}
	return d
}

// percentiles returns the 50th, 95th and 99th percentiles and the maximum of
// h in ms, as fio computes them from its buckets; false when h is empty or
// not a histogram (a negative count: reports that do not follow each other).
func (h hist) percentiles() (p50, p95, p99, maxMs float64, ok bool) {
	keys := make([]int64, 0, len(h))
	var total float64
	for k, v := range h {
		if v < 0 {
			return 0, 0, 0, 0, false
		}
		if v > 0 {
			keys = append(keys, k)
			total += v
		}
	}
	if total == 0 || !finite(total) {
		return 0, 0, 0, 0, false
	}
	slices.Sort(keys)
	at := func(p float64) float64 {
		var cum float64
		for _, k := range keys {
			if cum += h[k]; cum >= p/100*total {
				return float64(k) / 1e6
			}
		}
		return float64(keys[len(keys)-1]) / 1e6
	}
	return at(50), at(95), at(99), float64(keys[len(keys)-1]) / 1e6, true
}

// maxFioDoc bounds one report's size: json+ reports of many jobs are tens
// of KB; anything this big is not a report being read but a runaway one.
const maxFioDoc = 64 << 20

// fioJSON reads fio --output-format=json (or json+): one final report, or
// the reports of --status-interval, whose numbers are cumulative since the
// start, so a second is the difference of two consecutive reports.
type fioJSON struct {
	doc            []string // the lines of the report being read; nil outside one
	docLine, size  int
	seenDoc        bool
	first          string // the first line, for "no report"
	firstN         int
	docs           int // reports read
	havePrev       bool
	prev           fioTotals
	prevBins       hist // nil when the previous report had no histogram
	last           *fioDoc
	withPct, noPct int // samples with and without latency
}

func (p *fioJSON) line(r *Result, n int, l string) []probe.Sample {
	t := strings.TrimRight(l, " \t")
	if p.first == "" && strings.TrimSpace(l) != "" {
		p.first, p.firstN = strings.TrimSpace(l), n
	}
	switch {
	case t == "{" && p.doc != nil:
		r.bad(p.docLine, "{", "a fio JSON report cut short by the next one")
		fallthrough
	case t == "{":
		// A report starts at a line "{" in the first column (nested
		// objects are indented); what comes outside one is fio's chatter.
		p.doc, p.docLine, p.size, p.seenDoc = []string{l}, n, len(l), true
		return nil
	case p.doc == nil:
		return nil
	}
	p.doc = append(p.doc, l)
	if p.size += len(l) + 1; p.size > maxFioDoc {
		r.bad(p.docLine, "{", fmt.Sprintf("a fio JSON report of more than %d MiB: skipped", maxFioDoc>>20))
		p.doc = nil
		return nil
	}
	if t != "}" {
		return nil
	}
	return p.decode(r)
}

// decode reads the report in p.doc.
func (p *fioJSON) decode(r *Result) []probe.Sample {
	text := strings.Join(p.doc, "\n")
	p.doc = nil
	var d fioDoc
	if err := json.Unmarshal([]byte(text), &d); err != nil {
		r.bad(p.docLine, "{", "not a fio JSON report: "+err.Error())
		return nil
	}
	return p.report(r, &d)
}

func (p *fioJSON) report(r *Result, d *fioDoc) []probe.Sample {
	n := p.docLine
	t, ok := d.totals()
	if !ok {
		r.bad(n, "{", "a fio JSON report without jobs or with unusable numbers")
		return nil
	}
	p.docs++
	if t.ios < p.prev.ios || t.bytes < p.prev.bytes || t.ms < p.prev.ms {
		r.bad(n, "{", "cumulative numbers went down: not a report of the same run")
		return nil
	}
	p.last = d
	dt := (t.ms - p.prev.ms) / 1000
	if dt == 0 {
		if t.ios != p.prev.ios {
			r.bad(n, "{", "operations without time")
		}
		return nil // the same report again
	}
	bins, hasBins := d.bins()
	sec := int(math.Round(t.ms / 1000))
	var out []probe.Sample
	switch {
	case !p.havePrev && dt > 1.5:
		// A first report over much more than a second is not a status
		// report of --status-interval=1 but a final one: a summary.
	case sec <= r.lastSec():
		// fio's final report comes a fraction of a second after the last
		// status report, in the same second: it is in the summary; a later
		// report would be differenced from the last sample's.
		return nil
	default:
		s := probe.Sample{
			Sec:     sec,
			OpsPerS: (t.ios - p.prev.ios) / dt,
			MiBPerS: (t.bytes - p.prev.bytes) / dt / (1 << 20),
			Real:    probe.FieldOps | probe.FieldMiB,
		}
		var ok bool
		if hasBins && (p.prevBins != nil || !p.havePrev) {
			s.P50Ms, s.P95Ms, s.P99Ms, s.MaxMs, ok = bins.minus(p.prevBins).percentiles()
		}
		if ok {
			s.Real |= probe.FieldP50 | probe.FieldP95 | probe.FieldP99 | probe.FieldMax
			p.withPct++
		} else {
			p.noPct++
		}
		r.add(n, "{", s) // sec > r.lastSec(): it follows
		out = []probe.Sample{s}
	}
	p.prev, p.prevBins, p.havePrev = t, bins, true
	return out
}

func (p *fioJSON) end(r *Result) []probe.Sample {
	if p.doc == nil {
		return nil
	}
	var d fioDoc
	if err := json.Unmarshal([]byte(strings.Join(p.doc, "\n")), &d); err != nil {
		p.doc = nil
		r.bad(p.docLine, "{", "a fio JSON report cut short (fio stopped mid-report)")
		return nil
	}
	p.doc = nil
	return p.report(r, &d)
}

func (p *fioJSON) finish(r *Result) {
	if !p.seenDoc && p.first != "" {
		r.bad(p.firstN, p.first, "no fio JSON report")
	}
	if p.docs == 1 && len(r.Samples) == 0 {
		r.note("one fio report only (a final report, not --status-interval=1): a summary, no per-second samples; for those, run fio with --status-interval=1 or import its --write_iops_log with --log_avg_msec=1000")
	}
	if p.noPct > 0 {
		r.note("fio reports are cumulative: per-interval operations and MiB/s are differences of consecutive reports; %d samples have no latency, as percentiles cannot be differenced without fio's histogram (run fio with --output-format=json+)", p.noPct)
	}
	if p.withPct > 0 {
		r.note("per-second latency percentiles and max are those of the completion latency (clat) histogram of reads and writes of every job, differenced between consecutive reports (json+ bins, within 1%% of the true value)")
	}
	if p.last != nil {
		r.Summary = fioSummary(p.last, r)
	}
}

func fioSummary(d *fioDoc, r *Result) *probe.Summary {
	t, _ := d.totals()
	sum := &probe.Summary{
		DurationS: t.ms / 1000,
		Ops:       toCount(t.ios),
		Ended:     probe.EndCompleted,
		Workload:  probe.Spec{Workload: FormatFioJSON},
		Real:      probe.FieldOps | probe.FieldMiB,
	}
	if sum.DurationS > 0 {
		sum.OpsPerS = t.ios / sum.DurationS
		sum.MiBPerS = t.bytes / sum.DurationS / (1 << 20)
	}
	var errs []string
	var meanSum, meanN float64
	for _, j := range d.Jobs {
		if j.Error != 0 {
			errs = append(errs, fmt.Sprintf("job %s: error %d", j.Name, j.Error))
		}
		for _, dir := range []fioDir{j.Read, j.Write} {
			l := dir.ClatNs
			if l.N <= 0 || !finite(l.N) {
				continue
			}
			if finite(l.Max) {
				sum.MaxMs = math.Max(sum.MaxMs, l.Max/1e6)
				sum.Real |= probe.FieldMax
			}
			if l.Mean != nil && finite(*l.Mean) {
				meanSum += *l.Mean * l.N
				meanN += l.N
			}
		}
	}
	if meanN > 0 && finite(meanSum/meanN) {
		sum.AvgMs = meanSum / meanN / 1e6
		sum.Real |= probe.FieldAvg
	}
	if len(errs) > 0 {
		sum.Ended = probe.EndFailed
		sum.Error = "fio " + strings.Join(errs, "; ")
	}
	pcts := "latency percentiles left out: fio does not merge them across jobs (use --group_reporting or --output-format=json+)"
	if h, ok := d.bins(); ok && len(d.Jobs) > 1 {
		if p50, p95, p99, _, ok := h.percentiles(); ok {
			sum.P50Ms, sum.P95Ms, sum.P99Ms = p50, p95, p99
			sum.Real |= probe.FieldP50 | probe.FieldP95 | probe.FieldP99
			pcts = "latency percentiles are those of the merged completion latency (clat) histograms of every job (json+ bins)"
		}
	} else if len(d.Jobs) == 1 {
		j := d.Jobs[0]
		dir, name := j.Write, "write"
		if dir.ClatNs.N == 0 && j.Read.ClatNs.N > 0 {
			dir, name = j.Read, "read"
		}
		var s probe.Sample
		for k, v := range dir.ClatNs.Percentile {
			p, err := strconv.ParseFloat(k, 64)
			if err == nil && finite(v) {
				sum.Real |= pctField(p, v/1e6, &s)
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
