package probe

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/perfbisect/perfbisect/internal/jsonl"
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

// Decoder reads a JSON Lines stream of samples in the bufio.Scanner shape:
//
//	for d.Scan() { use(d.Record()) }
//	if err := d.Err(); err != nil { ... }
//
// Lines of other types are skipped, so it reads a session log too. A
// malformed line is a *jsonl.SyntaxError from Err, and the scan goes on.
type Decoder struct {
	s   *jsonl.Scanner
	rec Record
}

func NewDecoder(r io.Reader) *Decoder { return &Decoder{s: jsonl.NewScanner(r)} }

// Scan advances to the next sample or summary and reports whether there is one.
func (d *Decoder) Scan() bool {
	for d.s.Scan() {
		if ok, err := d.parse(d.s.Bytes()); err != nil {
			d.s.Bad(err)
		} else if ok {
			return true
		}
	}
	return false
}

func (d *Decoder) parse(b []byte) (bool, error) {
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
	if err := d.s.Err(); err != nil {
		return err
	}
	errs := d.SyntaxErrors()
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	return fmt.Errorf("%w (and %d more unreadable lines)", errs[0], len(errs)-1)
}

// SyntaxErrors lists every line that could not be parsed, each a
// *jsonl.SyntaxError.
func (d *Decoder) SyntaxErrors() []error {
	var out []error
	for _, e := range d.s.BadLines() {
		out = append(out, e)
	}
	return out
}
