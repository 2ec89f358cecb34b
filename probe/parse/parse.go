// Package parse turns the output of other benchmark tools (sysbench,
// pgbench, fio, or any command with a pattern) into per-second
// probe.Samples, live as the tool prints (Stream) or from a saved file
// (Parse), so a run of those tools can be compared with a probe run. Every
// sample says which fields the tool really gave for it (Sample.Real): a field
// it did not give is zero, never an invented value.
package parse

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/perfbisect/perfbisect/probe"
)

// Formats Parse and NewStream accept, besides "auto" and "fio" for Parse
// (which pick the format by content).
const (
	FormatSysbench   = "sysbench"
	FormatSysbench05 = "sysbench-0.5"
	FormatPgbench    = "pgbench"
	FormatFioJSON    = "fio-json"
	FormatFioLog     = "fio-log" // an iops log unless told otherwise
	FormatFioIOPSLog = "fio-iops-log"
	FormatFioLatLog  = "fio-lat-log"
	FormatFioBWLog   = "fio-bw-log"
	// FormatCommand is any program's output read with a pattern
	// (NewCommandStream); Parse does not take it.
	FormatCommand = "command"
)

// Result is what a Stream or Parse read.
type Result struct {
	Tool    string // the format read, e.g. "sysbench" or "fio-json"
	Samples []probe.Sample
	// Summary is the tool's own end-of-run report, nil when it gave none.
	// Its Real lists the fields that report gave.
	Summary *probe.Summary
	// Real is every field at least one sample has (the union of their
	// Real); zero when there are no samples.
	Real  probe.Fields
	Notes []string
	// Bad are lines that could not be read and were skipped (the first
	// maxBad of them; the notes give the count).
	Bad []LineError

	nbad int
}

// maxBad bounds Result.Bad, so a tool printing garbage for hours does not
// grow memory.
const maxBad = 1000

// LineError is a line that could not be read; it was skipped.
type LineError struct {
	Line   int
	Text   string
	Reason string
}

func (e LineError) Error() string { return fmt.Sprintf("line %d: %s: %q", e.Line, e.Reason, e.Text) }

// Parse reads the whole output of a tool in format, or detects the format
// from the content when format is "auto". It reads the lines through a
// Stream, so a saved file gives exactly the samples the live tool gave.
func Parse(r io.Reader, format string) (*Result, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if format, err = Resolve("", data, format); err != nil {
		return nil, err
	}
	if format == FormatCommand {
		return nil, fmt.Errorf("format %q needs a pattern: read command output with NewCommandStream", format)
	}
	s, err := NewStream(format)
	if err != nil {
		return nil, fmt.Errorf("unknown format %q (want auto, sysbench, sysbench-0.5, pgbench, fio, fio-json, fio-log, fio-iops-log, fio-lat-log or fio-bw-log)", format)
	}
	for _, l := range strings.Split(string(data), "\n") {
		s.Line(l)
	}
	s.end()
	return s.Result(), nil
}

// Resolve turns format as the operator gave it into the one to parse
// with: "auto" (or "") is detected from data, "fio" is fio JSON or a fio
// log, and a fio log's kind (iops, lat, bw) is told by its file name, as fio
// names them: NAME_iops.N.log, NAME_lat.N.log (also clat, slat),
// NAME_bw.N.log. name may be "" (a log of unknown kind is read as an iops
// log, and the result says so).
func Resolve(name string, data []byte, format string) (string, error) {
	switch format {
	case "auto", "":
		f, err := Detect(data)
		if err != nil {
			return "", err
		}
		format = f
	case "fio":
		f, err := Detect(data)
		if err != nil || (f != FormatFioJSON && f != FormatFioLog) {
			return "", fmt.Errorf("not fio JSON output or a fio log: the first line is %q", firstLine(data))
		}
		format = f
	}
	if format == FormatFioLog {
		format = fioLogKind(filepath.Base(name))
	}
	return format, nil
}

func fioLogKind(base string) string {
	switch {
	case strings.Contains(base, "_iops."):
		return FormatFioIOPSLog
	case strings.Contains(base, "_lat."), strings.Contains(base, "_clat."), strings.Contains(base, "_slat."):
		return FormatFioLatLog
	case strings.Contains(base, "_bw."):
		return FormatFioBWLog
	}
	return FormatFioLog
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
			return clip(l, 80)
		}
	}
	return ""
}

// clip cuts s to about n bytes, on a character boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
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
	r.nbad++
	if len(r.Bad) < maxBad {
		r.Bad = append(r.Bad, LineError{Line: n, Text: clip(text, 200), Reason: reason})
	}
}

// add appends s if its Sec follows the last sample's, and reports whether it did.
func (r *Result) add(n int, text string, s probe.Sample) bool {
	if k := len(r.Samples); k > 0 && s.Sec <= r.Samples[k-1].Sec {
		r.bad(n, text, fmt.Sprintf("second %d does not follow second %d", s.Sec, r.Samples[k-1].Sec))
		return false
	}
	r.Samples = append(r.Samples, s)
	return true
}

// lastSec is the Sec of the last sample, -1 when there is none.
func (r *Result) lastSec() int {
	if len(r.Samples) == 0 {
		return -1
	}
	return r.Samples[len(r.Samples)-1].Sec
}

func (r *Result) note(format string, a ...any) { r.Notes = append(r.Notes, fmt.Sprintf(format, a...)) }

// toCount rounds a rate over dt seconds to a count that fits an int64.
func toCount(v float64) int64 {
	if !finite(v) || v > 1e18 {
		return 0
	}
	return int64(math.Round(v))
}
