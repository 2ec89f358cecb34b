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
// malformed line is a *jsonl.SyntaxError, listed by BadLines and reported
// by Err, and the scan goes on.
type Decoder struct{ *jsonl.Decoder[Record] }

func NewDecoder(r io.Reader) *Decoder { return &Decoder{jsonl.NewDecoder(r, DecodeRecord)} }

// DecodeRecord reads one line of a stream of samples: a sample or the
// summary (ok), a line of another type (not ok, no error), or an error.
func DecodeRecord(b []byte) (rec Record, ok bool, err error) {
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return Record{}, false, err
	}
	switch head.Type {
	case "sample":
		var s Sample
		err := json.Unmarshal(b, &s)
		return Record{Type: head.Type, Sample: &s}, err == nil, err
	case "summary":
		var s Summary
		err := json.Unmarshal(b, &s)
		return Record{Type: head.Type, Summary: &s}, err == nil, err
	}
	return Record{}, false, nil
}

// Record is the record found by the last successful Scan.
func (d *Decoder) Record() Record { return d.Value() }

// Err reports a read error first, since what follows it was never read;
// else the first line that could not be parsed, itself when it is the only
// one, with a count of the rest when there are more.
func (d *Decoder) Err() error {
	if err := d.Decoder.Err(); err != nil {
		return err
	}
	bad := d.BadLines()
	switch len(bad) {
	case 0:
		return nil
	case 1:
		return bad[0]
	}
	return fmt.Errorf("%w (and %d more unreadable lines)", bad[0], len(bad)-1)
}
