package probe

import (
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"strconv"
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

// AllFields is every field of a Sample.
const AllFields = FieldErrors<<1 - 1

// ProbeFields are the fields the built-in fsync probe measures: a sample
// whose Real is zero has these.
const ProbeFields = FieldOps | FieldMiB | FieldP50 | FieldP95 | FieldP99 | FieldMax | FieldErrors

// Fields is a set of Field.
type Fields = Field

// field is all that is known of one field of a Sample. Everything that
// names, shows, judges or fills a field reads it from here; Sample's JSON
// tags, which must be literal, are held to it by TestSetGet.
type field struct {
	name  string // in JSON and in a playbook's metric: "p95_ms"
	label string // in a line of text: "p95", "ops/s"
	unit  string // of its values: "ms", "ops/s", "MiB/s", "" for a count
	// higherIsWorse: a larger value is a regression (a latency, errors);
	// otherwise it is an improvement (a throughput).
	higherIsWorse bool
	// latency: the field is a time per operation, which a second in which
	// no operation completed does not have (see Sample.Value).
	latency    bool
	percentile int                          // the percentile a latency is, 0 for max and avg
	groups     []string                     // its named groups in a command workload's pattern
	get        func(Sample) float64         // by value: a pointer would put every caller's Sample on the heap
	set        func(Sample, float64) Sample // by value, as get
}

// fields is indexed by the bit of the field, so it is in Sample's order:
// the order Names, the command's groups and the verdict's metrics follow.
var fields = [...]field{
	{name: "ops_per_s", label: "ops/s", unit: "ops/s", groups: []string{"ops"},
		get: func(s Sample) float64 { return s.OpsPerS }, set: func(s Sample, v float64) Sample { s.OpsPerS = v; return s }},
	{name: "mib_per_s", label: "MiB/s", unit: "MiB/s", groups: []string{"mib"},
		get: func(s Sample) float64 { return s.MiBPerS }, set: func(s Sample, v float64) Sample { s.MiBPerS = v; return s }},
	{name: "p50_ms", label: "p50", unit: "ms", higherIsWorse: true, latency: true, percentile: 50, groups: []string{"p50_ms"},
		get: func(s Sample) float64 { return s.P50Ms }, set: func(s Sample, v float64) Sample { s.P50Ms = v; return s }},
	{name: "p95_ms", label: "p95", unit: "ms", higherIsWorse: true, latency: true, percentile: 95, groups: []string{"p95_ms"},
		get: func(s Sample) float64 { return s.P95Ms }, set: func(s Sample, v float64) Sample { s.P95Ms = v; return s }},
	{name: "p99_ms", label: "p99", unit: "ms", higherIsWorse: true, latency: true, percentile: 99, groups: []string{"p99_ms"},
		get: func(s Sample) float64 { return s.P99Ms }, set: func(s Sample, v float64) Sample { s.P99Ms = v; return s }},
	{name: "max_ms", label: "max", unit: "ms", higherIsWorse: true, latency: true, groups: []string{"max_ms"},
		get: func(s Sample) float64 { return s.MaxMs }, set: func(s Sample, v float64) Sample { s.MaxMs = v; return s }},
	// lat_ms first: the name a command's output most often has for the
	// one latency it prints.
	{name: "avg_ms", label: "avg", unit: "ms", higherIsWorse: true, latency: true, groups: []string{"lat_ms", "avg_ms"},
		get: func(s Sample) float64 { return s.AvgMs }, set: func(s Sample, v float64) Sample { s.AvgMs = v; return s }},
	{name: "errors", label: "errors", higherIsWorse: true, groups: []string{"errors"},
		get: func(s Sample) float64 { return float64(s.Errors) }, set: func(s Sample, v float64) Sample { s.Errors = int64(math.Round(v)); return s }},
}

// info is the table's row for f, or nil when f is not one field.
func (f Field) info() *field {
	if bits.OnesCount16(uint16(f)) != 1 {
		return nil
	}
	if i := bits.TrailingZeros16(uint16(f)); i < len(fields) {
		return &fields[i]
	}
	return nil
}

// List is the fields of the set f, one by one, in Sample's order.
func (f Fields) List() []Field {
	var out []Field
	for i := range fields {
		if g := Field(1) << i; f&g != 0 {
			out = append(out, g)
		}
	}
	return out
}

// FieldByName returns the field whose JSON name is name ("p95_ms").
func FieldByName(name string) (Field, bool) {
	for _, f := range AllFields.List() {
		if f.info().name == name {
			return f, true
		}
	}
	return 0, false
}

// PercentileField returns the latency field of percentile p (95: p95_ms),
// and false when a Sample has none for it.
func PercentileField(p int) (Field, bool) {
	for _, f := range AllFields.List() {
		if p != 0 && f.info().percentile == p {
			return f, true
		}
	}
	return 0, false
}

// percentilesText lists the percentiles a Sample has a field for, for an
// error: "50, 95 or 99".
func percentilesText() string {
	var ps []string
	for _, f := range AllFields.List() {
		if p := f.info().percentile; p != 0 {
			ps = append(ps, strconv.Itoa(p))
		}
	}
	return strings.Join(ps[:len(ps)-1], ", ") + " or " + ps[len(ps)-1]
}

// Has reports whether every field of g is in f.
func (f Field) Has(g Field) bool { return f&g == g }

// Names lists the fields of f by their JSON names, in Sample's order.
func (f Field) Names() []string {
	var out []string
	for _, g := range f.List() {
		out = append(out, g.info().name)
	}
	return out
}

func (f Field) String() string { return strings.Join(f.Names(), ",") }

// Label is the field's short name in a line of text: "p50", "avg", "ops/s".
// A set of several fields is labelled by their names.
func (f Field) Label() string {
	if i := f.info(); i != nil {
		return i.label
	}
	return f.String()
}

// Title is the field as a heading says it: its label with its unit,
// "p99 ms", or the label alone when it is the unit, "ops/s", or has none,
// "errors".
func (f Field) Title() string {
	if u := f.Unit(); u != "" && u != f.Label() {
		return f.Label() + " " + u
	}
	return f.Label()
}

// Unit is the unit of the field's values: "ms", "ops/s", "MiB/s", and ""
// for errors (a count) or anything that is not one field.
func (f Field) Unit() string {
	if i := f.info(); i != nil {
		return i.unit
	}
	return ""
}

// HigherIsWorse reports whether a larger value of the field is a
// regression: true for the latencies and errors, false for the throughputs.
func (f Field) HigherIsWorse() bool {
	i := f.info()
	return i != nil && i.higherIsWorse
}

// IsLatency reports whether the field is a latency: a time per operation,
// in ms.
func (f Field) IsLatency() bool {
	i := f.info()
	return i != nil && i.latency
}

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
	i := f.info()
	if i == nil {
		return 0, false
	}
	return i.get(s), s.Measured().Has(f)
}

// Value returns field f of s as a measurement of that second, and whether
// it is one: not when s did not measure f, nor for a latency of a second
// that measured its operations and had none (ops_per_s 0). The probe
// reports that latency as 0, which would read as a very fast second; a
// stall shows in ops_per_s, and in max_ms of the second that ends it. A
// sample that never measured ops_per_s (a fio latency log) keeps its
// latencies: its 0 ops is not a count.
func (s Sample) Value(f Field) (float64, bool) {
	v, ok := s.Get(f)
	stalled := s.Measured().Has(FieldOps) && s.OpsPerS == 0
	return v, ok && !(f.IsLatency() && stalled)
}

// Set sets field f of s to v (FieldErrors: v rounded to a count) and marks
// it measured. v must be finite and at most 1e18.
func (s *Sample) Set(f Field, v float64) {
	if i := f.info(); i != nil {
		*s = i.set(*s, v)
		s.Real |= f
	}
}

// Latencies lists the latencies a one-line summary of samples that
// measured have shows, in the order p50, p95, p99, avg, max: the probe's
// line shows p50, p99 and max (its p95 adds little between them), a
// tool's the ones it gave. The mean goes before max, which is always the
// largest and ends the line.
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
