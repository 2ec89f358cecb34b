package playbook

import (
	"testing"
)

// FuzzParse: no input makes Parse panic, every error is an *Error placed
// at a line and column of the text, and every playbook it accepts can be
// walked: its first step reproduces, its targets name steps, and no walk
// goes round in a circle.
func FuzzParse(f *testing.F) {
	for _, name := range names() {
		src, err := Source(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Add([]byte(base))
	f.Add([]byte("name: t\nsteps: [\n"))
	f.Add([]byte("a: &x [*x]\n"))
	f.Add([]byte("name: a\nsteps:\n  - &s {<<: *s, id: a}\n"))
	f.Add([]byte("name: t\nsteps:\n  - <<: [{id: r}, {title: x}]\n    hypothesis: h\n    reproduce: true\n    persists: {conclude: a}\n    gone: {conclude: b}\n"))
	f.Add([]byte("? [a]\n: b\n"))
	f.Add([]byte("--- !!map\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse("fuzz.yaml", data, fakeKnobs)
		if err != nil {
			e, ok := err.(*Error)
			switch {
			case !ok:
				t.Fatalf("error is a %T, want *Error: %v", err, err)
			case e.Line < 1 || e.Column < 1 || e.File != "fuzz.yaml":
				t.Fatalf("error not placed in the file: %#v", e)
			case p != nil:
				t.Fatalf("a playbook and an error")
			}
			return
		}
		if len(p.Steps) == 0 || !p.Steps[0].Reproduce || p.Name == "" {
			t.Fatalf("accepted a playbook that cannot be walked: %+v", p)
		}
		if err := p.Workload.Validate(); err != nil {
			t.Fatalf("accepted a workload that does not validate: %v", err)
		}
		// Walk every path; the checks promise each ends within len(Steps) steps.
		var visit func(id string, depth int)
		visit = func(id string, depth int) {
			s, ok := p.Step(id)
			if !ok {
				t.Fatalf("a target names no step: %q", id)
			}
			if depth > len(p.Steps) {
				t.Fatalf("a walk goes round in a circle through %q", id)
			}
			if s.Title == "" || s.Hypothesis == "" || s.Duration < 1e9 {
				t.Fatalf("step %q incomplete: %+v", id, s)
			}
			for _, o := range Outcomes {
				tg := s.Target(o)
				if (tg.Next == "") == (tg.Conclude == "") {
					t.Fatalf("step %q: %s: target %+v", id, o, tg)
				}
				if tg.Next != "" {
					visit(tg.Next, depth+1)
				}
			}
		}
		visit(p.Steps[0].ID, 0)
	})
}
