package parse

import (
	"fmt"
	"slices"
	"strings"

	"github.com/perfbisect/perfbisect/probe"
)

// Stream reads a tool's output one line at a time, as the tool prints it.
// Each line is read once and nothing is re-read, so a Stream follows a tool
// for hours; a line it cannot read is recorded in Result().Bad and skipped.
//
//	s, _ := parse.NewStream("sysbench")
//	for sc.Scan() {
//		for _, sample := range s.Line(sc.Text()) { send(sample) }
//	}
//	res := s.Result()
//
// A Stream is not safe for concurrent use.
type Stream struct {
	res Result
	n   int // lines read
	f   format
}

// format reads the lines of one tool's output into a Result.
type format interface {
	// line reads line n, records bad lines and notes in r, and returns the
	// samples the line completes, already added to r.
	line(r *Result, n int, l string) []probe.Sample
	// end is told the input is over and returns the samples it held back
	// waiting for more lines, already added to r.
	end(r *Result) []probe.Sample
	// finish fills in r's Summary and closing notes. r is a copy: finish
	// must not change the format's own state, as Result may be called
	// again as more lines come.
	finish(r *Result)
}

// NewStream returns a Stream for the output of a tool: sysbench (1.x,
// --report-interval=1, stdout), sysbench-0.5, pgbench (-P 1, stderr),
// fio-json (--output-format=json or json+ with --status-interval=1: the
// reports are documents from a line "{" to a line "}"), or a fio log
// (fio-log, fio-iops-log, fio-lat-log, fio-bw-log, written with
// --log_avg_msec=1000). For "command", use NewCommandStream.
func NewStream(format string) (*Stream, error) {
	s := &Stream{res: Result{Tool: format}}
	switch format {
	case FormatSysbench, FormatSysbench05:
		s.f = &sysbench{pct: -1}
	case FormatPgbench:
		s.f = &pgbench{latAvg: -1}
	case FormatFioJSON:
		s.f = &fioJSON{}
	case FormatFioLog, FormatFioIOPSLog, FormatFioLatLog, FormatFioBWLog:
		s.f = newFioLog(&s.res, format)
		s.res.Tool = FormatFioLog
	case FormatCommand:
		return nil, fmt.Errorf("format %q needs a pattern: use NewCommandStream", format)
	default:
		return nil, fmt.Errorf("unknown format %q (want sysbench, sysbench-0.5, pgbench, fio-json, fio-log, fio-iops-log, fio-lat-log or fio-bw-log)", format)
	}
	return s, nil
}

// Line reads one line of output (its trailing newline, if any, is ignored)
// and returns the samples it completes: usually none or one, in order, each
// with a Sec greater than every Sec returned before.
func (s *Stream) Line(line string) []probe.Sample {
	s.n++
	line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	return s.f.line(&s.res, s.n, line)
}

// end says the output is over, and returns the samples held back for lines
// that will not come (a fio log's last second).
func (s *Stream) end() []probe.Sample { return s.f.end(&s.res) }

// Result is everything read so far: the samples, and the Summary when the
// tool's final report has been read. It is a copy; the Stream may go on.
func (s *Stream) Result() *Result {
	r := s.res
	r.Samples = slices.Clone(s.res.Samples)
	r.Notes = slices.Clone(s.res.Notes)
	r.Bad = slices.Clone(s.res.Bad)
	s.f.finish(&r)
	r.Real = 0
	for _, x := range r.Samples {
		r.Real |= x.Real
	}
	if r.nbad > 0 {
		r.note("%d unreadable lines skipped, the first: %v", r.nbad, r.Bad[0])
	}
	return &r
}
