package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/perfbisect/perfbisect/session"
)

// A reference is a baseline only for the same workload: the real binary
// refuses one of another block size before it makes a log, takes it with
// --reference-mismatch-ok and says so in the header, the log and the
// report, and compare says so above its table.
func TestReferenceOfAnotherWorkload(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	ref, rec := filepath.Join(dir, "ref.jsonl"), filepath.Join(dir, "walk.jsonl")
	out, err := exec.Command(bin, "probe", "--json", "--dir", dir, "--duration", "6s", "--file-size", "8MiB", "--bs", "8k").Output()
	if err != nil {
		t.Fatalf("reference probe: %v", err)
	}
	if err := os.WriteFile(ref, out, 0o600); err != nil {
		t.Fatal(err)
	}
	const differs = "block size 8KiB, not 4KiB"
	walk := func(extra ...string) (int, string, string) {
		t.Helper()
		args := append([]string{"run", "--no-tui", "--playbook", "testdata/nightly.yaml", "--dir", dir, "--reference", ref, "--record", rec}, extra...)
		var stdout, stderr strings.Builder
		c := exec.Command(bin, args...)
		c.Stdout, c.Stderr = &stdout, &stderr
		err := c.Run()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatalf("run: %v", err)
		}
		return c.ProcessState.ExitCode(), stdout.String(), stderr.String()
	}

	code, stdout, stderr := walk()
	if code != exitUsage || !strings.Contains(stderr, differs) || !strings.Contains(stderr, "--reference-mismatch-ok") || stdout != "" {
		t.Errorf("refused: exit %d, stdout %q, stderr %q; want 2 naming %q and the flag, nothing measured", code, stdout, stderr, differs)
	}
	if _, err := os.Stat(rec); err == nil {
		t.Error("a refused reference left a session log")
	}

	code, stdout, stderr = walk("--reference-mismatch-ok")
	if code != 0 || !strings.Contains(stdout, "ANOTHER WORKLOAD, compared anyway (--reference-mismatch-ok): "+differs) {
		t.Errorf("accepted: exit %d, stderr %s\n%s", code, stderr, stdout)
	}
	evs, _, err := session.ReadLogFile(rec)
	if err != nil || len(evs) == 0 {
		t.Fatalf("log: %v", err)
	}
	if got := evs[0].Data.(*session.SessionStart).ReferenceMismatch; !reflect.DeepEqual(got, []string{differs}) {
		t.Errorf("the log's session event says the reference differs by %q, want %q", got, differs)
	}
	md, err := os.ReadFile(strings.TrimSuffix(rec, ".jsonl") + ".md")
	if err != nil || !strings.Contains(string(md), "ANOTHER WORKLOAD") || !strings.Contains(string(md), differs) {
		t.Errorf("report (%v) does not say the reference ran another workload:\n%s", err, md)
	}

	out, err = exec.Command(bin, "compare", ref, rec).Output()
	if err != nil || !strings.HasPrefix(string(out), "DIFFERENT WORKLOADS ("+ref+" against "+rec+"): "+differs) {
		t.Errorf("compare: %v\n%s", err, out)
	}
	// The same workload says nothing of the kind.
	if out, err := exec.Command(bin, "compare", rec, rec).Output(); err != nil || strings.Contains(string(out), "DIFFERENT") {
		t.Errorf("compare of a run with itself: %v\n%s", err, out)
	}
}
