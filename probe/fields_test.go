package probe

import (
	"encoding/json"
	"testing"
)

// TestSetGet sets each field alone and reads it back, by Get and through
// the sample's JSON (so Set and Get cannot agree on a wrong struct field).
func TestSetGet(t *testing.T) {
	for i, fn := range fieldNames {
		v := float64(10 + i)
		var s Sample
		s.Set(fn.f, v)
		if got, ok := s.Get(fn.f); !ok || got != v {
			t.Errorf("%s: Get = %v, %t after Set(%v)", fn.name, got, ok, v)
		}
		if s.Real != fn.f {
			t.Errorf("%s: Real = %v, want only this field", fn.name, s.Real)
		}
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if m[fn.name] != v {
			t.Errorf("%s: the JSON says %v, want %v: %s", fn.name, m[fn.name], v, b)
		}
		for _, other := range fieldNames {
			if other.f != fn.f && m[other.name] != nil && m[other.name] != 0.0 {
				t.Errorf("Set(%s) also set %s: %s", fn.name, other.name, b)
			}
		}
	}
	var s Sample
	s.Set(FieldErrors, 2.6)
	if s.Errors != 3 {
		t.Errorf("errors 2.6 set as %d, want it rounded to 3", s.Errors)
	}
	if s.Set(0, 1); s.Real != FieldErrors {
		t.Errorf("Set of no field changed Real to %v", s.Real)
	}
}
