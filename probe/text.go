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
}

func NewTextEncoder(w io.Writer) *TextEncoder { return &TextEncoder{w: w} }

const textRow = "%4s %10s %8s %9s %9s %9s %9s %7s\n"

func (e *TextEncoder) writeHeader() error {
	if e.header {
		return nil
	}
	e.header = true
	_, err := fmt.Fprintf(e.w, textRow, "sec", "ops/s", "MiB/s", "p50 ms", "p95 ms", "p99 ms", "max ms", "errors")
	return err
}

func (e *TextEncoder) Sample(s Sample) error {
	if err := e.writeHeader(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(e.w, textRow, fmt.Sprint(s.Sec), fmt.Sprintf("%.1f", s.OpsPerS), fmt.Sprintf("%.2f", s.MiBPerS),
		MsText(s.P50Ms), MsText(s.P95Ms), MsText(s.P99Ms), MsText(s.MaxMs), fmt.Sprint(s.Errors))
	return err
}

func (e *TextEncoder) Summary(s Summary) error {
	if err := e.writeHeader(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(e.w, textRow, "all", fmt.Sprintf("%.1f", s.OpsPerS), fmt.Sprintf("%.2f", s.MiBPerS),
		MsText(s.P50Ms), MsText(s.P95Ms), MsText(s.P99Ms), MsText(s.MaxMs), fmt.Sprint(s.Errors))
	if err != nil {
		return err
	}
	switch s.Ended {
	case EndCompleted:
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
