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

const textRow = "%4s %10s %8s %9s %9s %9s %9s %7s\n"

const toolRow = "%4s %10s %8s %9s %9s %9s %9s %9s %7s\n"

func (e *TextEncoder) writeHeader(real Fields) error {
	if e.header {
		return nil
	}
	e.header, e.tool = true, real != 0
	var err error
	if e.tool {
		_, err = fmt.Fprintf(e.w, toolRow, "sec", "ops/s", "MiB/s", "p50 ms", "p95 ms", "p99 ms", "avg ms", "max ms", "errors")
	} else {
		_, err = fmt.Fprintf(e.w, textRow, "sec", "ops/s", "MiB/s", "p50 ms", "p95 ms", "p99 ms", "max ms", "errors")
	}
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
	show := func(f Field, text string) string {
		if !have.Has(f) {
			return "-"
		}
		return text
	}
	ops := show(FieldOps, fmt.Sprintf("%.1f", s.OpsPerS))
	mib := show(FieldMiB, fmt.Sprintf("%.2f", s.MiBPerS))
	p50, p95, p99 := show(FieldP50, MsText(s.P50Ms)), show(FieldP95, MsText(s.P95Ms)), show(FieldP99, MsText(s.P99Ms))
	mx, errs := show(FieldMax, MsText(s.MaxMs)), show(FieldErrors, fmt.Sprint(s.Errors))
	var err error
	if e.tool {
		_, err = fmt.Fprintf(e.w, toolRow, first, ops, mib, p50, p95, p99, show(FieldAvg, MsText(s.AvgMs)), mx, errs)
	} else {
		_, err = fmt.Fprintf(e.w, textRow, first, ops, mib, p50, p95, p99, mx, errs)
	}
	return err
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
