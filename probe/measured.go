package probe

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// The JSON forms of Sample and Summary leave out the fields the workload
// did not measure (pgbench's percentiles, sysbench's max), so no reader of
// `probe --json`, an import, the session log or the JSON report can take a
// 0 that was never measured for a very fast second. What was measured is
// Measured's to say, here as everywhere; a reader fills the missing fields
// with 0, and Real says they mean nothing.

// MarshalJSON writes the sample's fields, without those it did not measure.
func (s Sample) MarshalJSON() ([]byte, error) {
	type plain Sample // the default encoding, without this method
	return withoutUnmeasured(plain(s), s.Measured(), s.AvgMs)
}

// MarshalJSON writes the summary's fields, without those the run did not
// measure.
func (s Summary) MarshalJSON() ([]byte, error) {
	type plain Summary
	return withoutUnmeasured(plain(s), s.AsSample().Measured(), s.AvgMs)
}

// Assumed is s read from a log written before samples said what they
// measured, where Real 0 stood for the probe's set whatever the tool: a
// workload known to measure expected (Spec.Expected; 0 when not known)
// measured that and no more. A sample that says what it measured, or of
// the probe itself, is unchanged.
func (s Sample) Assumed(expected Fields) Sample {
	if s.Real == 0 && expected != 0 && expected != ProbeFields {
		s.Real = expected
	}
	return s
}

// withoutUnmeasured is v's JSON object less the keys of the fields not in
// have, in v's order.
func withoutUnmeasured(v any, have Fields, avg float64) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	missing := AllFields &^ have
	if missing == 0 || missing == FieldAvg && avg == 0 { // avg_ms is omitempty
		return b, nil
	}
	d := json.NewDecoder(bytes.NewReader(b))
	if _, err := d.Token(); err != nil { // {
		return nil, err
	}
	out := []byte{'{'}
	for d.More() {
		k, err := d.Token()
		if err != nil {
			return nil, err
		}
		key, ok := k.(string)
		if !ok {
			return nil, fmt.Errorf("a JSON object with the key %v", k)
		}
		var raw json.RawMessage
		if err := d.Decode(&raw); err != nil {
			return nil, err
		}
		if f, ok := FieldByName(key); ok && missing.Has(f) {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		q, _ := json.Marshal(key)
		out = append(append(append(out, q...), ':'), raw...)
	}
	return append(out, '}'), nil
}

// MarshalJSON writes the line's type, then the sample's own form (a
// promoted MarshalJSON would drop the type).
func (l sampleLine) MarshalJSON() ([]byte, error) { return typed(l.Type, l.Sample) }

// MarshalJSON writes the line's type, then the summary's own form.
func (l summaryLine) MarshalJSON() ([]byte, error) { return typed(l.Type, l.Summary) }

func typed(t string, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	q, _ := json.Marshal(t)
	out := append([]byte(`{"type":`), q...)
	if len(b) > 2 {
		out = append(out, ',')
	}
	return append(out, b[1:]...), nil
}
