package playbook

import "testing"

func TestStepTarget(t *testing.T) {
	s := Step{Persists: Target{Next: "b"}, Gone: Target{Conclude: "Done."}}
	uu := map[Outcome]Target{
		Persists:    {Next: "b"},
		Gone:        {Conclude: "Done."},
		Unavailable: {Next: "b"}, // the persists target, when not given
		"bogus":     {},
	}
	for outcome, want := range uu {
		if got := s.Target(outcome); got != want {
			t.Errorf("Target(%q) = %v, want %v", outcome, got, want)
		}
	}
	s.Unavailable = Target{Next: "c"}
	if got := s.Target(Unavailable); got.Next != "c" {
		t.Errorf("Target(unavailable) = %v, want -> c", got)
	}
}

func TestTargetString(t *testing.T) {
	uu := map[string]Target{
		"-> tmpfs":             {Next: "tmpfs"},
		"conclude: Not disks.": {Conclude: "Not disks."},
		"(nowhere)":            {},
	}
	for want, tg := range uu {
		if got := tg.String(); got != want {
			t.Errorf("%#v.String() = %q, want %q", tg, got, want)
		}
	}
}

func TestPlaybookStep(t *testing.T) {
	p, err := Parse("t.yaml", []byte(base), fakeKnobs)
	if err != nil {
		t.Fatal(err)
	}
	s, ok := p.Step("tmpfs")
	if !ok || s != &p.Steps[1] {
		t.Errorf("Step(tmpfs) = %p, %v; want the playbook's own step", s, ok)
	}
	if _, ok := p.Step("nope"); ok {
		t.Error("Step(nope) found a step")
	}
}

func TestChangesHost(t *testing.T) {
	p, err := lookup("local-disk", fakeKnobs)
	if err != nil {
		t.Fatal(err)
	}
	if !p.ChangesHost() {
		t.Error("local-disk turns knobs, ChangesHost says no")
	}
	p.Steps = []Step{{ID: "reproduce"}}
	if p.ChangesHost() {
		t.Error("a playbook without knobs changes the host, says ChangesHost")
	}
}

func TestSummary(t *testing.T) {
	for desc, want := range map[string]string{
		"Walks the disk.\n  Then more. And more": "Walks the disk.",
		"One line, no stop":                      "One line, no stop",
		"v1.2 is out. Then":                      "v1.2 is out.",
	} {
		if got := (&Playbook{Description: desc}).Summary(); got != want {
			t.Errorf("Summary of %q = %q, want %q", desc, got, want)
		}
	}
}
