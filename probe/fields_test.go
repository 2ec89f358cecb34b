package probe

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"
)

// TestSetGet sets each field alone and reads it back, by Get and through
// the sample's JSON (so Set and Get cannot agree on a wrong struct field),
// and finds it again by its JSON name.
func TestSetGet(t *testing.T) {
	all := AllFields.List()
	if len(all) != len(fields) || all[0] != FieldOps || all[len(all)-1] != FieldErrors {
		t.Fatalf("AllFields.List() = %v, want the %d fields from ops to errors", all, len(fields))
	}
	for i, f := range all {
		name := f.String()
		v := float64(10 + i)
		var s Sample
		s.Set(f, v)
		if got, ok := s.Get(f); !ok || got != v {
			t.Errorf("%s: Get = %v, %t after Set(%v)", name, got, ok, v)
		}
		if s.Real != f {
			t.Errorf("%s: Real = %v, want only this field", name, s.Real)
		}
		if g, ok := FieldByName(name); !ok || g != f {
			t.Errorf("FieldByName(%q) = %v, %t; want %v", name, g, ok, f)
		}
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if m[name] != v {
			t.Errorf("%s: the JSON says %v, want %v: %s", name, m[name], v, b)
		}
		for _, other := range all {
			if o := other.String(); other != f && m[o] != nil && m[o] != 0.0 {
				t.Errorf("Set(%s) also set %s: %s", name, o, b)
			}
		}
		var back Sample
		if err := json.Unmarshal(b, &back); err != nil || back != s {
			t.Errorf("%s: the JSON %s reads back as %+v (%v), want %+v", name, b, back, err, s)
		}
	}
	var s Sample
	s.Set(FieldErrors, 2.6)
	if s.Errors != 3 {
		t.Errorf("errors 2.6 set as %d, want it rounded to 3", s.Errors)
	}
	for _, none := range []Field{0, FieldOps | FieldP50, AllFields + 1} {
		if s.Set(none, 1); s.Real != FieldErrors || s.OpsPerS != 0 {
			t.Errorf("Set of %v, not one field, changed the sample to %+v", uint16(none), s)
		}
		if v, ok := s.Get(none); ok || v != 0 {
			t.Errorf("Get of %v, not one field = %v, %t", uint16(none), v, ok)
		}
	}
	if _, ok := FieldByName("p90_ms"); ok {
		t.Error("FieldByName found p90_ms, which a Sample does not have")
	}
}

// TestFieldTable holds each field to what the verdicts, the chart and the
// command workload said of it when each had a table of its own.
func TestFieldTable(t *testing.T) {
	uu := map[Field]struct {
		label, unit, title   string
		higherIsWorse, isLat bool
	}{
		FieldOps:    {"ops/s", "ops/s", "ops/s", false, false},
		FieldMiB:    {"MiB/s", "MiB/s", "MiB/s", false, false},
		FieldP50:    {"p50", "ms", "p50 ms", true, true},
		FieldP95:    {"p95", "ms", "p95 ms", true, true},
		FieldP99:    {"p99", "ms", "p99 ms", true, true},
		FieldMax:    {"max", "ms", "max ms", true, true},
		FieldAvg:    {"avg", "ms", "avg ms", true, true},
		FieldErrors: {"errors", "", "errors", true, false},
	}
	for f, u := range uu {
		if f.Label() != u.label || f.Unit() != u.unit || f.Title() != u.title || f.HigherIsWorse() != u.higherIsWorse || f.IsLatency() != u.isLat {
			t.Errorf("%v: label %q, unit %q, title %q, higher is worse %t, latency %t; want %+v", f, f.Label(), f.Unit(), f.Title(), f.HigherIsWorse(), f.IsLatency(), u)
		}
	}
	if len(uu) != len(AllFields.List()) {
		t.Errorf("tested %d fields of %d", len(uu), len(AllFields.List()))
	}
	if got := (FieldOps | FieldP95).Label(); got != "ops_per_s,p95_ms" {
		t.Errorf("the label of a set is %q, want its names", got)
	}
	if got := (FieldOps | FieldP95).Unit(); got != "" {
		t.Errorf("the unit of a set is %q, want none", got)
	}

	groups := map[string]Field{
		"ops": FieldOps, "mib": FieldMiB, "p50_ms": FieldP50, "p95_ms": FieldP95, "p99_ms": FieldP99,
		"max_ms": FieldMax, "lat_ms": FieldAvg, "avg_ms": FieldAvg, "errors": FieldErrors,
	}
	if !maps.Equal(CommandGroups, groups) {
		t.Errorf("CommandGroups = %v, want %v", CommandGroups, groups)
	}
	if got, want := commandGroupsText(), "ops, mib, p50_ms, p95_ms, p99_ms, max_ms, lat_ms or avg_ms, errors"; got != want {
		t.Errorf("the groups are listed as %q, want %q", got, want)
	}

	for p, want := range map[int]Field{50: FieldP50, 95: FieldP95, 99: FieldP99, 90: 0, 0: 0, 100: 0} {
		if got, ok := PercentileField(p); got != want || ok != (want != 0) {
			t.Errorf("PercentileField(%d) = %v, %t; want %v", p, got, ok, want)
		}
	}
	if got := percentilesText(); got != "50, 95 or 99" {
		t.Errorf("percentiles listed as %q", got)
	}
}

// A second without operations has no latency, but still its throughput
// (0) and its errors; a sample that did not count operations keeps its
// latencies.
func TestValue(t *testing.T) {
	busy := Sample{Sec: 1, OpsPerS: 300, MiBPerS: 1.2, P50Ms: 4, P95Ms: 14, P99Ms: 24, MaxMs: 2034, Errors: 1}
	stall := Sample{Sec: 2, Errors: 2}
	pg := Sample{Sec: 3, OpsPerS: 500, AvgMs: 2, Real: FieldOps | FieldAvg}
	pgStall := Sample{Sec: 4, AvgMs: 0, Real: FieldOps | FieldAvg}
	fioLat := Sample{Sec: 5, AvgMs: 6.098, Real: FieldAvg}
	uu := map[string]struct {
		s    Sample
		have []Field
	}{
		"busy":    {busy, ProbeFields.List()},
		"stall":   {stall, []Field{FieldOps, FieldMiB, FieldErrors}},
		"pgbench": {pg, []Field{FieldOps, FieldAvg}},
		// A tool's second that counted its operations and had none.
		"pgbench stall": {pgStall, []Field{FieldOps}},
		// No ops were measured, so its 0 ops is no stall: the mean stays.
		"fio lat log": {fioLat, []Field{FieldAvg}},
	}
	for name, u := range uu {
		var have []Field
		for _, f := range AllFields.List() {
			v, ok := u.s.Value(f)
			if want, _ := u.s.Get(f); v != want {
				t.Errorf("%s: Value(%v) = %v, Get says %v", name, f, v, want)
			}
			if ok {
				have = append(have, f)
			}
		}
		if !slices.Equal(have, u.have) {
			t.Errorf("%s: values of %v, want %v", name, have, u.have)
		}
	}
}
