package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/perfbisect/perfbisect/probe/knob"
	"github.com/perfbisect/perfbisect/session/playbook"
)

func TestPlaybooksListAndShow(t *testing.T) {
	code, out, stderr := runCLI(t, context.Background(), "playbooks")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"NAME", "ebs-write-regression", "local-disk"} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
	code, yaml, stderr := runCLI(t, context.Background(), "playbooks", "show", "local-disk")
	if code != 0 || !strings.Contains(yaml, "name: local-disk") {
		t.Fatalf("show: exit %d %s\n%s", code, stderr, yaml)
	}
	// What show prints is a playbook a user can save, edit and run.
	file := filepath.Join(t.TempDir(), "mine.yaml")
	if err := os.WriteFile(file, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	pb, err := loadPlaybook(file)
	if err != nil || pb.Name != "local-disk" {
		t.Errorf("the shown YAML does not load back: %v", err)
	}
	if code, _, stderr := runCLI(t, context.Background(), "playbooks", "show", "nope"); code != exitUsage || !strings.Contains(stderr, "local-disk") {
		t.Errorf("show nope: exit %d, %q", code, stderr)
	}
}

// TestEmbeddedPlaybooksUseRealKnobs checks every embedded playbook against
// the real knob registry (the playbook package's own tests use a stand-in).
func TestEmbeddedPlaybooksUseRealKnobs(t *testing.T) {
	for _, pb := range playbook.Embedded() {
		data, err := playbook.Source(pb.Name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := playbook.Parse("embedded:"+pb.Name, data, func(name string, s knob.Settings) error {
			_, err := knob.New(name, s)
			return err
		}); err != nil {
			t.Errorf("%s: %v", pb.Name, err)
		}
	}
	if len(playbook.Embedded()) < 2 {
		t.Errorf("%d embedded playbooks", len(playbook.Embedded()))
	}
}

func TestCompare(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, p50 func(i int) float64) string {
		var b strings.Builder
		for i := 1; i <= 12; i++ {
			v := p50(i)
			b.WriteString(`{"type":"sample","sec":` + itoa(i) + `,"ops_per_s":` + ftoa(1/v*1000) + `,"mib_per_s":1,"p50_ms":` + ftoa(v) + `,"p95_ms":` + ftoa(v*1.2) + `,"p99_ms":` + ftoa(v*1.5) + `,"max_ms":` + ftoa(v*3) + `,"errors":0}` + "\n")
		}
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(b.String()), 0o600)
		return path
	}
	jitter := func(i int) float64 { return float64((i*7)%5) * 0.01 }
	a := write("a.jsonl", func(i int) float64 { return 0.5 + jitter(i) })
	b := write("b.jsonl", func(i int) float64 { return 1.0 + 2*jitter(i) })
	same := write("same.jsonl", func(i int) float64 { return 0.5 + jitter(i+1) })

	code, out, stderr := runCLI(t, context.Background(), "compare", a, b)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	p50 := lineOf(out, "p50_ms")
	if !strings.Contains(p50, "2.00x") || !strings.Contains(p50, "regressed") || !strings.Contains(p50, "n=10+10") {
		t.Errorf("p50 line %q, want a 2x regression over 10+10 seconds\n%s", p50, out)
	}
	if ops := lineOf(out, "ops_per_s"); !strings.Contains(ops, "regressed") {
		t.Errorf("ops/s halved: %q", ops)
	}
	_, out, _ = runCLI(t, context.Background(), "compare", a, same)
	if p50 := lineOf(out, "p50_ms"); !strings.Contains(p50, "~") {
		t.Errorf("same runs: %q, want ~", p50)
	}
	if code, _, stderr := runCLI(t, context.Background(), "compare", a, filepath.Join(dir, "missing")); code != exitFailure || !strings.Contains(stderr, "missing") {
		t.Errorf("missing file: exit %d %q", code, stderr)
	}
	// Bad flags say what is wrong instead of printing a table of nothing.
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--threshold", "10"}, exitUsage, "such as 0.10 for 10%"},
		{[]string{"--warmup", "100s"}, exitFailure, "no seconds left after the 1m40s warm-up"},
	} {
		code, out, stderr := runCLI(t, context.Background(), append(append([]string{"compare"}, c.args...), a, b)...)
		if code != c.code || !strings.Contains(stderr, c.want) || out != "" {
			t.Errorf("compare %v: exit %d, stdout %q, stderr %q; want exit %d and %q", c.args, code, out, stderr, c.code, c.want)
		}
	}
}

func lineOf(out, prefix string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), prefix) {
			return l
		}
	}
	return ""
}

func itoa(i int) string     { return strconv.Itoa(i) }
func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', 4, 64) }
