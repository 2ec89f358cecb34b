// Package parse turns the saved output of other benchmark tools (sysbench,
// pgbench, fio) into per-second probe.Samples, so a run of those tools can be
// compared with a probe run. It records which Sample fields the tool really
// gave: a field it did not give is zero, never an invented value.
package parse

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"regexp"
	"strings"

	"github.com/perfbisect/perfbisect/probe"
)

// Names of Sample fields, as in its JSON form, for Result.Real.
const (
	FieldOpsPerS = "ops_per_s"
	FieldMiBPerS = "mib_per_s"
	FieldP50     = "p50_ms"
	FieldP95     = "p95_ms"
	FieldP99     = "p99_ms"
	FieldMax     = "max_ms"
	FieldErrors  = "errors"
)

// Formats Parse accepts besides "auto" (and "fio", which picks fio-json or
// fio-log by content).
const (
	FormatSysbench   = "sysbench"
	FormatSysbench05 = "sysbench-0.5"
	FormatPgbench    = "pgbench"
	FormatFioJSON    = "fio-json"
	FormatFioLog     = "fio-log" // an iops log unless told otherwise
	FormatFioIOPSLog = "fio-iops-log"
	FormatFioLatLog  = "fio-lat-log"
	FormatFioBWLog   = "fio-bw-log"
)

// Result is what Parse read.
type Result struct {
	Tool    string // the format read, e.g. "sysbench" or "fio-json"
	Samples []probe.Sample
	// Summary is the tool's own end-of-run report, nil when it gave none.
	Summary *probe.Summary
	// Real lists the Sample fields the tool really gave, e.g.
	// {"ops_per_s","p95_ms","errors"}; the others are zero.
	Real  []string
	Notes []string
	Bad   []LineError
}

// LineError is a line that could not be read; it was skipped.
type LineError struct {
	Line   int
	Text   string
	Reason string
}

func (e LineError) Error() string { return fmt.Sprintf("line %d: %s: %q", e.Line, e.Reason, e.Text) }

// Parse reads the output of a tool in format, or detects it from the content
// when format is "auto".
func Parse(r io.Reader, format string) (*Result, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if format == "auto" || format == "" {
		format, err = Detect(data)
		if err != nil {
			return nil, err
		}
	}
	if format == "fio" {
		if f, err := Detect(data); err == nil && (f == FormatFioJSON || f == FormatFioLog) {
			format = f
		} else {
			return nil, fmt.Errorf("not fio JSON output or a fio log: the first line is %q", firstLine(data))
		}
	}
	var res *Result
	switch format {
	case FormatSysbench, FormatSysbench05:
		res = parseSysbench(data)
	case FormatPgbench:
		res = parsePgbench(data)
	case FormatFioJSON:
		res = parseFioJSON(data)
	case FormatFioLog, FormatFioIOPSLog, FormatFioLatLog, FormatFioBWLog:
		res = parseFioLog(data, format)
	default:
		return nil, fmt.Errorf("unknown format %q (want auto, sysbench, sysbench-0.5, pgbench, fio, fio-json, fio-log, fio-iops-log, fio-lat-log or fio-bw-log)", format)
	}
	if len(res.Bad) > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%d unreadable lines skipped, the first: %v", len(res.Bad), res.Bad[0]))
	}
	return res, nil
}

var (
	reSysbenchLine = regexp.MustCompile(`^\[\s*\d+s\s*\]\s*thds:`)
	reSysbench05   = regexp.MustCompile(`^\[\s*\d+s\]\s*threads:`)
	reSysbenchHead = regexp.MustCompile(`^sysbench (\d+)\.`)
	rePgbenchLine  = regexp.MustCompile(`^progress: [0-9.]+ s, `)
	reFioLogLine   = regexp.MustCompile(`^\d+,\s*\d+,\s*\d+,\s*\d+,\s*\d+(,\s*\d+)?$`)
)

// Detect names the format of data: sysbench, sysbench-0.5, pgbench, fio-json
// or fio-log.
func Detect(data []byte) (string, error) {
	if isFioJSON(data) {
		return FormatFioJSON, nil
	}
	lines := strings.Split(string(data), "\n")
	first := true
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		switch {
		case reSysbenchLine.MatchString(l):
			return FormatSysbench, nil
		case reSysbench05.MatchString(l):
			return FormatSysbench05, nil
		case rePgbenchLine.MatchString(l), strings.HasPrefix(l, "pgbench ("):
			return FormatPgbench, nil
		case first && reFioLogLine.MatchString(l):
			return FormatFioLog, nil
		}
		if m := reSysbenchHead.FindStringSubmatch(l); m != nil {
			if m[1] == "0" {
				return FormatSysbench05, nil
			}
			return FormatSysbench, nil
		}
		first = false
	}
	return "", fmt.Errorf("not sysbench, pgbench or fio output: the first line is %q", firstLine(data))
}

func isFioJSON(data []byte) bool {
	t := bytes.TrimSpace(data)
	return bytes.Contains(t, []byte(`"fio version"`)) && (bytes.HasPrefix(t, []byte("{")) || bytes.Contains(t, []byte("\n{\n")))
}

func firstLine(data []byte) string {
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if len(l) > 80 {
				l = l[:80] + "…"
			}
			return l
		}
	}
	return ""
}

// lines is a cursor over the lines of data, numbered from 1.
func splitLines(data []byte) []string {
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	return strings.Split(s, "\n")
}

// finite reports whether every v is a usable, non-negative number.
func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return false
		}
	}
	return true
}

func (r *Result) bad(n int, text, reason string) {
	if len(text) > 200 {
		text = text[:200] + "…"
	}
	r.Bad = append(r.Bad, LineError{Line: n, Text: text, Reason: reason})
}

// add appends s if its Sec follows the last sample's.
func (r *Result) add(n int, text string, s probe.Sample) {
	if k := len(r.Samples); k > 0 && s.Sec <= r.Samples[k-1].Sec {
		r.bad(n, text, fmt.Sprintf("second %d does not follow second %d", s.Sec, r.Samples[k-1].Sec))
		return
	}
	r.Samples = append(r.Samples, s)
}

func (r *Result) note(format string, a ...any) { r.Notes = append(r.Notes, fmt.Sprintf(format, a...)) }

// toCount rounds a rate over dt seconds to a count that fits an int64.
func toCount(v float64) int64 {
	if !finite(v) || v > 1e18 {
		return 0
	}
	return int64(math.Round(v))
}
