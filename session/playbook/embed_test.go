package playbook

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestEmbedded(t *testing.T) {
	ps, err := embedded(fakeKnobs)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range ps {
		got = append(got, p.Name)
		src, err := Source(p.Name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(p.YAML, src) || p.Source != "embedded:"+p.Name {
			t.Errorf("%s: Source %q and YAML do not match Source(%q)", p.Name, p.Source, p.Name)
		}
		if p.Description == "" {
			t.Errorf("%s: no description", p.Name)
		}
		for _, s := range p.Steps {
			if s.Meaning[Persists] == "" || s.Meaning[Gone] == "" {
				t.Errorf("%s: step %s does not say what its outcomes mean", p.Name, s.ID)
			}
		}
	}
	if want := []string{"ebs-lab", "ebs-write-regression", "local-disk"}; !slices.Equal(got, want) {
		t.Errorf("embedded playbooks %v, want %v (sorted)", got, want)
	}
}

func TestLookupUnknown(t *testing.T) {
	for _, name := range []string{"nope", "../playbook", "playbooks/local-disk", ""} {
		if _, err := Lookup(name); err == nil || !strings.Contains(err.Error(), "built in: ebs-lab, ebs-write-regression, local-disk") {
			t.Errorf("Lookup(%q) = %v, want an error listing the playbooks", name, err)
		}
		if _, err := Source(name); err == nil {
			t.Errorf("Source(%q) found a playbook", name)
		}
	}
}

func TestLookup(t *testing.T) {
	p, err := lookup("local-disk", fakeKnobs)
	if err != nil {
		t.Fatal(err)
	}
	var knobs []string
	for _, s := range p.Steps {
		for _, k := range s.Knobs {
			knobs = append(knobs, k.Knob+" "+k.With["size"]+k.With["mode"]+k.With["value"])
		}
	}
	if want := []string{"tmpfs 1g", "fsync off", "scheduler none"}; !slices.Equal(knobs, want) {
		t.Errorf("local-disk knobs %q, want %q", knobs, want)
	}
}

// walk follows a playbook from its first step, taking each step's outcome
// from outcomes, and returns the steps it went through and the conclusion.
func walk(t *testing.T, p *Playbook, outcomes map[string]Outcome) ([]string, string) {
	t.Helper()
	var path []string
	s := &p.Steps[0]
	for range len(p.Steps) {
		path = append(path, s.ID)
		outcome, ok := outcomes[s.ID]
		if !ok {
			t.Fatalf("walk %v: no outcome for step %s", path, s.ID)
		}
		tg := s.Target(outcome)
		if tg.Conclude != "" {
			return path, tg.Conclude
		}
		next, ok := p.Step(tg.Next)
		if !ok {
			t.Fatalf("walk %v: step %s leads to %v, which is no step", path, s.ID, tg)
		}
		s = next
	}
	t.Fatalf("walk %v: no conclusion after every step", path)
	return nil, ""
}

// The walks through the default playbook, each to its conclusion.
func TestWalk(t *testing.T) {
	p, err := lookup("ebs-write-regression", fakeKnobs)
	if err != nil {
		t.Fatal(err)
	}
	const everyStep = "reproduce image host tmpfs fsync volume-type"
	uu := map[string]struct {
		outcomes map[string]Outcome
		path     string   // the steps walked
		says     []string // in the conclusion
	}{
		// The seeds' investigation: DoltHub downgraded the AMI (no change),
		// left the cluster (no change), moved the data to tmpfs (gone),
		// turned fsync off (gone) and moved from gp2 to gp3 (fixed).
		"the seeds": {map[string]Outcome{"reproduce": Persists, "image": Persists, "host": Persists, "tmpfs": Gone, "fsync": Gone, "volume-type": Gone},
			everyStep, []string{"gp3", "{volume} is slow"}},
		// On a plain host the image and host steps cannot run: the walk
		// goes on to the disk, and ends without a volume to change.
		"a plain host": {map[string]Outcome{"reproduce": Persists, "image": Unavailable, "host": Unavailable, "tmpfs": Gone, "fsync": Gone, "volume-type": Unavailable},
			everyStep, []string{"volume type could not be changed here"}},

		"not reproduced": {map[string]Outcome{"reproduce": Gone}, "reproduce", []string{"Not reproduced"}},
		"the image":      {map[string]Outcome{"reproduce": Persists, "image": Gone}, "reproduce image", []string{"image change caused it"}},
		"the cluster":    {map[string]Outcome{"reproduce": Persists, "image": Persists, "host": Gone}, "reproduce image host", []string{"The cluster caused it"}},
		"not the disk": {map[string]Outcome{"reproduce": Persists, "image": Persists, "host": Persists, "tmpfs": Persists},
			"reproduce image host tmpfs", []string{"Not the disk"}},
		"not the flushes": {map[string]Outcome{"reproduce": Persists, "image": Persists, "host": Persists, "tmpfs": Gone, "fsync": Persists},
			"reproduce image host tmpfs fsync", []string{"Not the flushes"}},
		"gp3 as slow": {map[string]Outcome{"reproduce": Persists, "image": Persists, "host": Persists, "tmpfs": Gone, "fsync": Gone, "volume-type": Persists},
			everyStep, []string{"io2"}},
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) {
			path, conclusion := walk(t, p, u.outcomes)
			if got := strings.Join(path, " "); got != u.path {
				t.Errorf("walked %s, want %s", got, u.path)
			}
			for _, w := range u.says {
				if !strings.Contains(conclusion, w) {
					t.Errorf("conclusion %q does not mention %q", conclusion, w)
				}
			}
		})
	}
}

// Every path through every built-in playbook, whatever the outcomes, ends
// in a conclusion.
func TestEmbeddedEveryPathConcludes(t *testing.T) {
	ps, err := embedded(fakeKnobs)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		var visit func(id string, depth int)
		visit = func(id string, depth int) {
			s, ok := p.Step(id)
			if !ok || depth > len(p.Steps) {
				t.Fatalf("%s: bad walk at %q (depth %d)", p.Name, id, depth)
			}
			for _, o := range Outcomes {
				if next := s.Target(o).Next; next != "" {
					visit(next, depth+1)
				}
			}
		}
		visit(p.Steps[0].ID, 0)
	}
}

// TestLoad: a file when there is one, else a built-in playbook; neither is
// ErrNotFound, and a file that does not parse is its own error.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	src, err := Source("local-disk")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "mine.yaml")
	bad := filepath.Join(dir, "bad.yaml")
	if err := errors.Join(os.WriteFile(file, src, 0o600), os.WriteFile(bad, []byte("name: [\n"), 0o600)); err != nil {
		t.Fatal(err)
	}
	mine, err := Load(file)
	if err != nil || mine.Source != file || mine.Name != "local-disk" {
		t.Fatalf("Load(file) = %+v, %v", mine, err)
	}
	built, err := Load("local-disk")
	if err != nil || built.Source != "embedded:local-disk" {
		t.Fatalf("Load(local-disk) = %+v, %v", built, err)
	}
	if _, err := Load(filepath.Join(dir, "nope")); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "no such file, and no built-in playbook") {
		t.Errorf("Load(nope) = %v, want ErrNotFound", err)
	}
	if _, err := Load(bad); err == nil || errors.Is(err, ErrNotFound) || !strings.HasPrefix(err.Error(), bad+":1:") {
		t.Errorf("Load(bad) = %v, want its parse error at line 1", err)
	}
}
