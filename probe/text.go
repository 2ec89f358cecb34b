package probe

import (
	"fmt"
	"io"
)

// TextEncoder writes samples as an aligned table for people, one line per
// second, and the summary as a last row under the same columns.
type TextEncoder struct {
	w      io.Writer
	header bool
	tool   bool // the first sample came from a tool: an avg column, "-" where a field was not measured
}

func NewTextEncoder(w io.Writer) *TextEncoder { return &TextEncoder{w: w} }

// column is one column of the table after "sec": its field, whose title
// heads it, its width, and how a second's value of it shows.
type column struct {
	f     Field
	width int
	text  func(Sample) string
}

func msColumn(f Field) column {
	return column{f, 9, func(s Sample) string { v, _ := s.Get(f); return MsText(v) }}
}

// columns are the table's, in Sample's order but for max, the largest,
// which ends the latencies as in a summary line (Latencies). Only a tool's
// table has avg: the probe never measures it.
var columns = []column{
	{FieldOps, 10, func(s Sample) string { return fmt.Sprintf("%.1f", s.OpsPerS) }},
	{FieldMiB, 8, func(s Sample) string { return fmt.Sprintf("%.2f", s.MiBPerS) }},
	msColumn(FieldP50), msColumn(FieldP95), msColumn(FieldP99), msColumn(FieldAvg), msColumn(FieldMax),
	{FieldErrors, 7, func(s Sample) string { return fmt.Sprint(s.Errors) }},
}

func (e *TextEncoder) writeHeader(real Fields) error {
	if e.header {
		return nil
	}
	e.header, e.tool = true, real != 0
	return e.line("sec", func(c column) string { return c.f.Title() })
}

// line writes one row: first under "sec", then each column's cell.
func (e *TextEncoder) line(first string, cell func(column) string) error {
	b := fmt.Appendf(nil, "%4s", first)
	for _, c := range columns {
		if c.f != FieldAvg || e.tool {
			b = fmt.Appendf(b, " %*s", c.width, cell(c))
		}
	}
	_, err := e.w.Write(append(b, '\n'))
	return err
}

func (e *TextEncoder) Sample(s Sample) error {
	if err := e.writeHeader(s.Real); err != nil {
		return err
	}
	return e.row(fmt.Sprint(s.Sec), s, s.Measured())
}

// row writes one line; a field a tool did not measure shows as "-".
func (e *TextEncoder) row(first string, s Sample, have Fields) error {
	return e.line(first, func(c column) string {
		if !have.Has(c.f) {
			return "-"
		}
		return c.text(s)
	})
}

func (e *TextEncoder) Summary(s Summary) error {
	if err := e.writeHeader(s.Real); err != nil {
		return err
	}
	row := s.AsSample()
	if err := e.row("all", row, row.Measured()|FieldOps); err != nil {
		return err
	}
	var err error
	switch {
	case s.Real != 0 && s.Ended == EndCompleted:
		_, err = fmt.Fprintf(e.w, "%d operations in %.1fs; latencies from the tool's own report (\"-\": it gave none)\n", s.Ops, s.DurationS)
	case s.Real != 0:
		_, err = fmt.Fprintf(e.w, "cut short (%s): %d operations in %.1fs\n", s.Ended, s.Ops, s.DurationS)
	case s.Ended == EndCompleted:
		_, err = fmt.Fprintf(e.w, "%d operations in %.1fs; percentiles over every operation of the run\n", s.Ops, s.DurationS)
	default:
		_, err = fmt.Fprintf(e.w, "cut short (%s): %d operations in %.1fs; percentiles over every operation measured\n", s.Ended, s.Ops, s.DurationS)
	}
	return err
}

// MsText shows milliseconds with three significant digits, at least to the
// microsecond: 0.012, 0.712, 12.3, 1234. The bounds are where a value would
// round up into the next decade (9.996 is "10.0", not "10.00").
func MsText(v float64) string {
	switch {
	case v >= 99.95:
		return fmt.Sprintf("%.0f", v)
	case v >= 9.995:
		return fmt.Sprintf("%.1f", v)
	case v >= 0.9995:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3f", v)
}
