package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/session"
)

// --result gives a step made by hand the measurement taken on another
// machine, headless.

func TestRunResultUsageErrors(t *testing.T) {
	pb, err := filepath.Abs("testdata/byhand.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	good := filepath.Join(dir, "bare.txt")
	data, err := os.ReadFile("../../probe/parse/testdata/sysbench-1.0.20-oltp_write_only.txt")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(good, data, 0o600)
	uu := map[string]struct {
		result string
		says   []string
	}{
		"a step not made by hand": {"reproduce=" + good, []string{"--result reproduce", "those made by hand are bare"}},
		"no such step":            {"nope=" + good, []string{"--result nope", "has no step nope", "bare"}},
		"unreadable file":         {"bare=" + filepath.Join(dir, "missing.jsonl"), []string{"--result bare", "missing.jsonl", "no such file"}},
		"not STEP=FILE":           {"bare", []string{"want STEP=FILE"}},
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) {
			failsBeforeAnything(t, dir, 1, []string{"run", "--no-tui", "--yes", "--playbook", pb, "--dir", dir, "--result", u.result}, u.says...)
		})
	}
}

// The bare host measured as fast as the known-good run (here: that run's
// own steady seconds, so the verdict cannot hang on noise): the
// cluster was the cause. persists, and a file of another workload, are the
// session's tests (elsewhere_test.go), on seconds that do not vary.
func TestRunManualStepGivenAResult(t *testing.T) {
	dir := t.TempDir()
	// Steady seconds far faster than any disk: saved probe output.
	var evs []session.Event
	for i := 1; i <= 15; i++ {
		p50 := 0.0002 + float64(i%4)*0.00002
		evs = append(evs, session.NewEvent(time.Now(), "", &probe.Sample{Sec: i, OpsPerS: 1e6, MiBPerS: 3900, P50Ms: p50, P95Ms: 2 * p50, P99Ms: 3 * p50, MaxMs: 5 * p50}))
	}
	ref := filepath.Join(dir, "ref.jsonl")
	if err := session.WriteLogFile(ref, evs); err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(dir, "walk.jsonl")
	code, stdout, stderr := runCLI(t, context.Background(), "run", "--no-tui", "--yes", "--playbook", "testdata/byhand.yaml",
		"--dir", t.TempDir(), "--reference", ref, "--record", rec, "--result", "bare="+ref)
	if code != 0 {
		t.Fatalf("exit %d; stderr %s\n%s", code, stderr, stdout)
	}
	for _, want := range []string{"measured elsewhere: 15 s from " + ref, "conclusion: the cluster. Measured: reproduce regressed", "bare gone (p50 1.00x the reference's"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	evs, _, err := session.ReadLogFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := session.Fold(evs).Step("bare")
	if s == nil || s.State != session.StateGone || s.Elsewhere == nil || s.Elsewhere.File != ref || len(s.Samples) != 15 {
		t.Fatalf("the log's bare step %+v, want gone on the file's 15 s", s)
	}
	for _, c := range s.Changes {
		t.Errorf("knob %s %s: a step measured elsewhere changes nothing here", c.Action, c.Change.Knob)
	}
}
