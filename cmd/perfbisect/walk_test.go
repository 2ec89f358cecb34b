package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/testutil"
	"github.com/perfbisect/perfbisect/internal/testutil/hosttest"
	"github.com/perfbisect/perfbisect/session"
)

func TestRunNeedsATerminalOrYes(t *testing.T) {
	failsBeforeAnything(t, t.TempDir(), 0, []string{"run", "--no-tui", "--playbook", "local-disk"}, "no terminal to ask", "--yes")
}

func TestRunBadPlaybookFailsBeforeAnything(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("name: bad\ndescription: x\nsteps:\n  - id: a\n    title: A\n    hypothesis: h\n    reproduce: true\n    knobs:\n      - knob: tmpfss\n    persists: {conclude: x}\n    gone: {conclude: y}\n"), 0o600)
	// The file, the line and the unknown knob.
	failsBeforeAnything(t, dir, 1, []string{"run", "--no-tui", "--yes", "--playbook", bad}, bad+":9:", "tmpfss")
}

// TestRunTooShortFailsBeforeTheLog: a --duration that leaves too few
// seconds after the warm-up is a usage error, and no session log is left
// to stand in the way of the rerun.
func TestRunTooShortFailsBeforeTheLog(t *testing.T) {
	dir := t.TempDir()
	failsBeforeAnything(t, dir, 0, []string{"run", "--no-tui", "--yes", "--dir", dir, "--duration", "3s", "--record", "w.jsonl"},
		"fewer than 5 seconds to judge", "--duration of at least")
}

// TestRunBadValuesFailBeforeTheLog: a --dir that cannot be used and a
// length that cannot mean what was asked are usage errors, found before a
// session log is made; none is ignored.
func TestRunBadValuesFailBeforeTheLog(t *testing.T) {
	uu := map[string]struct {
		args func(dir string) []string
		want []string
	}{
		"dir's parent missing": {func(dir string) []string { return []string{"--dir", filepath.Join(dir, "no", "such")} },
			[]string{"no/such", "no such file or directory", "create it first"}},
		"dir a file": {func(dir string) []string {
			os.WriteFile(filepath.Join(dir, "plain"), nil, 0o600)
			return []string{"--dir", filepath.Join(dir, "plain")}
		}, []string{"plain: not a directory"}},
		"negative duration":     {func(string) []string { return []string{"--duration", "-5s"} }, []string{"--duration -5s", "positive"}},
		"negative max-duration": {func(string) []string { return []string{"--max-duration", "-1s"} }, []string{"--max-duration -1s", "positive"}},
		"max below duration": {func(string) []string { return []string{"--duration", "10s", "--max-duration", "5s"} },
			[]string{"--max-duration 5s is shorter than --duration 10s"}},
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"run", "--no-tui", "--yes", "--playbook", "local-disk", "--record", "w.jsonl"}, u.args(dir)...)
			keep := len(testutil.Entries(t, dir))
			failsBeforeAnything(t, dir, keep, args, u.want...)
		})
	}
	t.Run("dir read-only", func(t *testing.T) {
		ro := testutil.Tmpfs(t, "1m")
		testutil.Run(t, "mount", "-o", "remount,ro", ro)
		dir := t.TempDir()
		failsBeforeAnything(t, dir, 0, []string{"run", "--no-tui", "--yes", "--playbook", "local-disk", "--record", "w.jsonl", "--dir", ro},
			ro+" is not writable", "read-only file system")
	})
}

// TestRunHelpSaysTheExitCodes: a job that reads the exit code can find
// what each one means.
func TestRunHelpSaysTheExitCodes(t *testing.T) {
	code, out, _ := runCLI(t, context.Background(), "run", "--help")
	for _, want := range []string{"SIGHUP", "0    the walk concluded", "1    failed", "2    usage", "3    --fail-on-regression", "130  interrupted"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("run --help (exit %d) does not say %q", code, want)
		}
	}
}

// TestFailOnRegressionNeedsNoTUI: the screen does not give the exit code a
// job would read, so the flag asks for --no-tui instead of being ignored.
func TestFailOnRegressionNeedsNoTUI(t *testing.T) {
	failsBeforeAnything(t, t.TempDir(), 0, []string{"run", "--fail-on-regression", "--reference", "ref.jsonl", "--yes"}, "add --no-tui")
}

func TestRunDryRunDescribesAndChangesNothing(t *testing.T) {
	quick, _ := filepath.Abs("testdata/quick.yaml")
	dir := t.TempDir()
	t.Chdir(dir)
	code, stdout, stderr := runCLI(t, context.Background(), "run", "--no-tui", "--dry-run", "--playbook", quick, "--record", "dry.jsonl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"DRY RUN", "plan tmpfs: ", "mount -t tmpfs", "unavailable here: volume-type: volume-type needs EC2 or the lab", "dry run: every change was described"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("dry run output lacks %q:\n%s", want, stdout)
		}
	}
	evs, bad, err := session.ReadLogFile(filepath.Join(dir, "dry.jsonl"))
	if err != nil || len(bad) > 0 || len(evs) == 0 {
		t.Fatalf("dry run log: %v %v", err, bad)
	}
	for _, e := range evs {
		if e.Type == session.TypeSample {
			t.Fatal("a dry run measured")
		}
	}
}

func TestRunFailOnRegression(t *testing.T) {
	testutil.RequireRoot(t)
	dir := t.TempDir()
	// The reference: last night's run, on tmpfs, far faster than tonight's disk.
	fast := testutil.Tmpfs(t, "64m")
	code, ref, stderr := runCLI(t, context.Background(), "probe", "--json", "--dir", fast, "--duration", "6s", "--file-size", "8m")
	if code != 0 {
		t.Fatalf("reference probe: %s", stderr)
	}
	refFile := filepath.Join(dir, "ref.jsonl")
	os.WriteFile(refFile, []byte(ref), 0o600)
	rec := filepath.Join(dir, "tonight.jsonl")
	code, stdout, stderr := runCLI(t, context.Background(), "run", "--no-tui", "--yes", "--playbook", "testdata/nightly.yaml",
		"--dir", dir, "--reference", refFile, "--record", rec, "--fail-on-regression")
	if code != exitRegressed {
		t.Errorf("exit %d, want 3; stderr %s\n%s", code, stderr, stdout)
	}
	for _, want := range []string{"vs reference", "regressed", "conclusion: slower than the reference", "reference p50_ms", "multiplier", "report: " + filepath.Join(dir, "tonight.html")} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	// The walk left its reports beside the log, and report renders the log.
	for _, ext := range []string{".md", ".html", ".json"} {
		if st, err := os.Stat(filepath.Join(dir, "tonight"+ext)); err != nil || st.Size() == 0 {
			t.Errorf("report tonight%s: %v", ext, err)
		}
	}
	code, md, stderr := runCLI(t, context.Background(), "report", rec)
	if code != 0 || !strings.Contains(md, "slower than the reference") || !strings.Contains(md, "| reproduce |") {
		t.Errorf("report: exit %d, %s\n%s", code, stderr, md)
	}
	if code, _, stderr := runCLI(t, context.Background(), "report", "--format", "pdf", rec); code != exitUsage {
		t.Errorf("report --format pdf: exit %d, %s", code, stderr)
	}
}

// TestReportAndReplayWantEvents: a log with no event in it (an empty file,
// or not a session log) is an error for both, not an empty report or screen.
func TestReportAndReplayWantEvents(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty.jsonl")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"report", "replay"} {
		if code, _, stderr := runCLI(t, context.Background(), cmd, empty); code != exitFailure || !strings.Contains(stderr, empty+": no events in it") {
			t.Errorf("%s of an empty log: exit %d, stderr %q; want 1 saying it has no events", cmd, code, stderr)
		}
	}
}

// TestRunInterruptedPutsTheHostBack sends SIGINT to the real binary in the
// middle of the tmpfs step: the mount must be gone and the log readable.
func TestRunInterruptedPutsTheHostBack(t *testing.T) {
	testutil.RequireRoot(t)
	dir := t.TempDir()
	rec := filepath.Join(dir, "walk.jsonl")
	cmd := exec.Command(binary(t), "run", "--no-tui", "--yes", "--playbook", "testdata/quick.yaml", "--dir", filepath.Join(dir, "data"), "--record", rec)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var mountpoint string
	deadline := time.Now().Add(60 * time.Second)
	for mountpoint == "" && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
		evs, _, _ := session.ReadLogFile(rec)
		for _, e := range evs {
			if k, ok := e.Data.(*session.KnobEvent); ok && k.Action == session.KnobApplied && k.Change.Knob == "tmpfs" {
				mountpoint = tmpfsMount(t)
			}
		}
	}
	if mountpoint == "" {
		t.Fatalf("the tmpfs step never started:\n%s", out.String())
	}
	time.Sleep(1500 * time.Millisecond) // a second or so into the step
	cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("still running 30s after SIGINT:\n%s", out.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
		t.Errorf("exit %d, want 130:\n%s", code, out.String())
	}
	tmpfsPutBack(t, rec, session.EndInterrupted)
}

// TestRunKilledLeavesAReadableLog kills the walk with SIGKILL mid-step.
func TestRunKilledLeavesAReadableLog(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "walk.jsonl")
	cmd := exec.Command(binary(t), "run", "--no-tui", "--yes", "--playbook", "testdata/nightly.yaml", "--dir", dir, "--record", rec)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	evs, _, err := session.ReadLogFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	var samples int
	for _, e := range evs {
		if e.Type == session.TypeSample {
			samples++
		}
	}
	if len(evs) < 3 || samples == 0 {
		t.Errorf("after kill -9: %d events, %d samples", len(evs), samples)
	}
}

// tmpfsPutBack checks a walk that stopped in its tmpfs step: nothing is
// mounted any more, and its log, whole, says tmpfs was put back and the
// session ended as want.
func tmpfsPutBack(t *testing.T, rec string, want session.Ending) {
	t.Helper()
	if m := tmpfsMount(t); m != "" {
		t.Errorf("tmpfs still mounted on %s after the session %s", m, want)
	}
	evs, bad, err := session.ReadLogFile(rec)
	if err != nil || len(bad) > 0 {
		t.Fatalf("log: %v %v", err, bad)
	}
	var reverted bool
	var end *session.SessionEnd
	for _, e := range evs {
		if k, ok := e.Data.(*session.KnobEvent); ok && k.Action == session.KnobReverted && k.Change.Knob == "tmpfs" {
			reverted = true
		}
		if s, ok := e.Data.(*session.SessionEnd); ok {
			end = s
		}
	}
	if !reverted || end == nil || end.Ended != want {
		t.Errorf("log: tmpfs reverted %v, end %+v; want reverted, ended %s", reverted, end, want)
	}
}

// tmpfsMount finds a tmpfs a perfbisect knob mounted, if any.
func tmpfsMount(t *testing.T) string {
	t.Helper()
	for _, m := range hosttest.MountsUnder(t, "/run/perfbisect") {
		if strings.HasPrefix(filepath.Base(m), "tmpfs-") {
			return m
		}
	}
	return ""
}

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
		if err := c.Run(); c.ProcessState == nil {
			t.Fatalf("run: %v", err) // it did not start
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
