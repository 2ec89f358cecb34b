package probe

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// Record is one line of a JSON Lines stream of samples: exactly one of
// Sample and Summary is set, matching Type.
type Record struct {
	Type    string // "sample" or "summary"
	Sample  *Sample
	Summary *Summary
}

type sampleLine struct {
	Type string `json:"type"`
	Sample
}

type summaryLine struct {
	Type string `json:"type"`
	Summary
}

// JSONEncoder writes samples and the summary as JSON Lines, one object per line.
type JSONEncoder struct{ w io.Writer }

func NewJSONEncoder(w io.Writer) *JSONEncoder { return &JSONEncoder{w} }

func (e *JSONEncoder) Sample(s Sample) error { return e.line(sampleLine{"sample", s}) }

func (e *JSONEncoder) Summary(s Summary) error { return e.line(summaryLine{"summary", s}) }

func (e *JSONEncoder) line(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = e.w.Write(append(b, '\n'))
	return err
}

// SyntaxError is a line that could not be read. The decoder reports it and
// goes on with the next line.
type SyntaxError struct {
	Line int
	Torn bool // the last line of the stream, cut short without a newline (a crash mid-write)
	Err  error
}

func (e *SyntaxError) Error() string {
	if e.Torn {
		return fmt.Sprintf("line %d: cut short (the file ends mid-line, as after a crash), ignored", e.Line)
	}
	return fmt.Sprintf("line %d: %v", e.Line, e.Err)
}

func (e *SyntaxError) Unwrap() error { return e.Err }

// Decoder reads a JSON Lines stream of samples in the bufio.Scanner shape:
//
//	for d.Scan() { use(d.Record()) }
//	if err := d.Err(); err != nil { ... }
//
// Lines of other types are skipped, so it reads a session log too. A
// malformed line is a *SyntaxError from Err, and the scan goes on.
type Decoder struct {
	r    *bufio.Reader
	line int
	rec  Record
	errs []error
	err  error
}

func NewDecoder(r io.Reader) *Decoder { return &Decoder{r: bufio.NewReader(r)} }

// Scan advances to the next sample or summary and reports whether there is one.
func (d *Decoder) Scan() bool {
	for d.err == nil {
		b, err := d.r.ReadBytes('\n')
		if err != nil && err != io.EOF {
			d.err = err
			return false
		}
		if len(b) == 0 && err == io.EOF {
			return false
		}
		d.line++
		torn := err == io.EOF
		if ok, perr := d.parse(bytes.TrimSpace(b)); perr != nil {
			d.errs = append(d.errs, &SyntaxError{Line: d.line, Torn: torn, Err: perr})
		} else if ok {
			return true
		}
		if torn {
			return false
		}
	}
	return false
}

func (d *Decoder) parse(b []byte) (bool, error) {
	if len(b) == 0 {
		return false, nil
	}
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return false, err
	}
	switch head.Type {
	case "sample":
		var s Sample
		if err := json.Unmarshal(b, &s); err != nil {
			return false, err
		}
		d.rec = Record{Type: head.Type, Sample: &s}
	case "summary":
		var s Summary
		if err := json.Unmarshal(b, &s); err != nil {
			return false, err
		}
		d.rec = Record{Type: head.Type, Summary: &s}
	default:
		return false, nil
	}
	return true, nil
}

// Record is the record found by the last successful Scan.
func (d *Decoder) Record() Record { return d.rec }

// Err reports a read error, or else the lines that could not be parsed.
func (d *Decoder) Err() error {
	if d.err != nil {
		return d.err
	}
	if len(d.errs) == 0 {
		return nil
	}
	return joinErrors(d.errs)
}

// SyntaxErrors lists every line that could not be parsed.
func (d *Decoder) SyntaxErrors() []error { return d.errs }

func joinErrors(errs []error) error {
	if len(errs) == 1 {
		return errs[0]
	}
	return fmt.Errorf("%w (and %d more unreadable lines)", errs[0], len(errs)-1)
}
