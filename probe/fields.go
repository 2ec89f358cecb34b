package probe

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// Field names one measured field of a Sample, as in its JSON form.
type Field uint16

// The fields of a Sample. The built-in fsync probe measures all of them but
// FieldAvg; other tools give fewer (sysbench: throughput, one percentile and
// errors; pgbench: throughput, the average latency and failures), and a
// sample says which it has, so nothing is judged or drawn from a zero that
// was never measured.
const (
	FieldOps Field = 1 << iota
	FieldMiB
	FieldP50
	FieldP95
	FieldP99
	FieldMax
	FieldAvg
	FieldErrors
)

var fieldNames = []struct {
	f    Field
	name string
}{
	{FieldOps, "ops_per_s"}, {FieldMiB, "mib_per_s"}, {FieldP50, "p50_ms"}, {FieldP95, "p95_ms"},
	{FieldP99, "p99_ms"}, {FieldMax, "max_ms"}, {FieldAvg, "avg_ms"}, {FieldErrors, "errors"},
}

// ProbeFields are the fields the built-in fsync probe measures: a sample
// whose Real is zero has these.
const ProbeFields = FieldOps | FieldMiB | FieldP50 | FieldP95 | FieldP99 | FieldMax | FieldErrors

// Fields is a set of Field.
type Fields = Field

// FieldByName returns the field whose JSON name is name ("p95_ms").
func FieldByName(name string) (Field, bool) {
	for _, n := range fieldNames {
		if n.name == name {
			return n.f, true
		}
	}
	return 0, false
}

// Has reports whether every field of g is in f.
func (f Field) Has(g Field) bool { return f&g == g }

// Names lists the fields of f by their JSON names, in Sample's order.
func (f Field) Names() []string {
	var out []string
	for _, n := range fieldNames {
		if f&n.f != 0 {
			out = append(out, n.name)
		}
	}
	return out
}

func (f Field) String() string { return strings.Join(f.Names(), ",") }

// MarshalJSON writes the set as a list of names: ["ops_per_s","p95_ms"].
func (f Field) MarshalJSON() ([]byte, error) {
	names := f.Names()
	if names == nil {
		names = []string{}
	}
	return json.Marshal(names)
}

// UnmarshalJSON reads a list of names; an unknown name is an error.
func (f *Field) UnmarshalJSON(b []byte) error {
	var names []string
	if err := json.Unmarshal(b, &names); err != nil {
		return fmt.Errorf("fields: want a list of field names: %v", err)
	}
	*f = 0
	for _, n := range names {
		g, ok := FieldByName(n)
		if !ok {
			return fmt.Errorf("fields: unknown field %q", n)
		}
		*f |= g
	}
	return nil
}

// Measured says which fields s really has: those its Real lists, or the
// probe's when it lists none.
func (s Sample) Measured() Field {
	if s.Real == 0 {
		return ProbeFields
	}
	return s.Real
}

// Get returns field f of s, and whether s really measured it.
func (s Sample) Get(f Field) (float64, bool) {
	var v float64
	switch f {
	case FieldOps:
		v = s.OpsPerS
	case FieldMiB:
		v = s.MiBPerS
	case FieldP50:
		v = s.P50Ms
	case FieldP95:
		v = s.P95Ms
	case FieldP99:
		v = s.P99Ms
	case FieldMax:
		v = s.MaxMs
	case FieldAvg:
		v = s.AvgMs
	case FieldErrors:
		v = float64(s.Errors)
	default:
		return 0, false
	}
	return v, s.Measured().Has(f)
}

// Set sets field f of s to v (FieldErrors: v rounded to a count) and marks
// it measured. v must be finite and at most 1e18.
func (s *Sample) Set(f Field, v float64) {
	switch f {
	case FieldOps:
		s.OpsPerS = v
	case FieldMiB:
		s.MiBPerS = v
	case FieldP50:
		s.P50Ms = v
	case FieldP95:
		s.P95Ms = v
	case FieldP99:
		s.P99Ms = v
	case FieldMax:
		s.MaxMs = v
	case FieldAvg:
		s.AvgMs = v
	case FieldErrors:
		s.Errors = int64(math.Round(v))
	default:
		return
	}
	s.Real |= f
}

// Label is the field's short name in a line of text: "p50", "avg", "ops/s".
func (f Field) Label() string {
	switch f {
	case FieldOps:
		return "ops/s"
	case FieldMiB:
		return "MiB/s"
	case FieldP50:
		return "p50"
	case FieldP95:
		return "p95"
	case FieldP99:
		return "p99"
	case FieldMax:
		return "max"
	case FieldAvg:
		return "avg"
	case FieldErrors:
		return "errors"
	}
	return f.String()
}

// Latencies lists the latencies a one-line summary of samples that
// measured have shows, in the order p50, p95, p99, avg, max: the probe's
// line shows p50, p99 and max (its p95 adds little between them), a
// tool's the ones it gave.
func Latencies(have Fields) []Field {
	var out []Field
	for _, f := range []Field{FieldP50, FieldP95, FieldP99, FieldAvg, FieldMax} {
		if have.Has(f) && !(f == FieldP95 && have.Has(FieldP50|FieldP99)) {
			out = append(out, f)
		}
	}
	return out
}

// AsSample is the summary's numbers as a sample, so one formatter shows
// both; it measured what the summary says (the probe's set when Real is 0).
func (s Summary) AsSample() Sample {
	return Sample{OpsPerS: s.OpsPerS, MiBPerS: s.MiBPerS, P50Ms: s.P50Ms, P95Ms: s.P95Ms, P99Ms: s.P99Ms,
		AvgMs: s.AvgMs, MaxMs: s.MaxMs, Errors: s.Errors, Real: s.Real}
}
