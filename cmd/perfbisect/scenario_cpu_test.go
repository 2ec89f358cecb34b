package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/shell"
	"github.com/perfbisect/perfbisect/internal/testutil"
	"github.com/perfbisect/perfbisect/session"
)

// cpuLoop is a workload bound by CPU alone: it prints, every second, how
// many operations it did, each one the number of rounds of arithmetic that
// the file cost says. It writes nothing to any disk. It runs until killed.
func cpuLoop(cost string) {
	b, err := os.ReadFile(cost)
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || n < 1 {
		fmt.Fprintf(os.Stderr, "cpu-loop: cost %s: %v %q\n", cost, err, b)
		os.Exit(2)
	}
	x := uint64(88172645463325252)
	for {
		ops, end := 0, time.Now().Add(time.Second)
		for time.Now().Before(end) {
			for range n * 20000 {
				x ^= x << 13
				x ^= x >> 7
				x ^= x << 17
			}
			ops++
		}
		fmt.Printf("ops=%d x=%d\n", ops, x&1)
	}
}

// TestScenarioCPUBound: the injected cause is the engine's own cost, four
// times the work per operation, on a workload that never waits on the disk.
// The walk must reproduce the regression, find it as slow in memory as on
// disk, and conclude that the disk is not the cause.
func TestScenarioCPUBound(t *testing.T) {
	testutil.RequireRoot(t) // the tmpfs step mounts
	bin := binary(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	cost := filepath.Join(dir, "cost")
	setCost := func(n int) {
		if err := os.WriteFile(cost, []byte(strconv.Itoa(n)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	workload := []string{"--workload", "command", "--command", shell.Join(self, "cpu-loop", cost), "--pattern", `ops=(?P<ops>[0-9]+)`}
	setCost(1)
	ref, err := exec.Command(bin, append([]string{"probe", "--json", "--dir", data, "--duration", "8s"}, workload...)...).Output()
	if err != nil {
		t.Fatalf("reference: %v\n%s", err, ref)
	}
	refFile := filepath.Join(dir, "reference.jsonl")
	if err := os.WriteFile(refFile, ref, 0o600); err != nil {
		t.Fatal(err)
	}
	setCost(4)
	rec := filepath.Join(dir, "walk.jsonl")
	out, err := exec.Command(bin, append([]string{"run", "--no-tui", "--yes", "--playbook", "local-disk", "--dir", data, "--duration", "8s", "--reference", refFile, "--record", rec}, workload...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("walk: %v\n%s", err, out)
	}
	evs, bad, err := session.ReadLogFile(rec)
	if err != nil || len(bad) > 0 {
		t.Fatalf("log: %v %v", err, bad)
	}
	w := session.Fold(evs)
	for step, want := range map[string]session.State{"reproduce": session.StateRegressed, "tmpfs": session.StatePersists} {
		if s, ok := w.Step(step); !ok || s.State != want {
			t.Errorf("step %s: %+v, want %s\n%s", step, s, want, out)
		}
	}
	c := w.Conclusion()
	t.Logf("conclusion: %s", c)
	if !strings.Contains(strings.ToLower(c), "not the disk") {
		t.Errorf("conclusion %q, want the disk ruled out\n%s", c, out)
	}
}
