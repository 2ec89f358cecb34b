package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/testutil"
	"github.com/perfbisect/perfbisect/probe/journal"
	"github.com/perfbisect/perfbisect/probe/sysinfo"
	"github.com/perfbisect/perfbisect/session"
)

// The host is put back however the walk is stopped: the real binary, a
// real tmpfs mount and a real scheduler change on a loop device's queue.

// changedHost is a loop device with an ext4 data dir, and the scheduler
// its queue uses and another it offers.
type changedHost struct {
	dir, queue, was, to string
}

func newChangedHost(t *testing.T) *changedHost {
	t.Helper()
	testutil.RequireRoot(t)
	dev, mnt := testutil.LoopExt4(t, 64<<20)
	h := &changedHost{dir: filepath.Join(mnt, "data"), queue: filepath.Join("/sys/block", filepath.Base(dev), "queue")}
	var offered []string
	var err error
	if h.was, offered, err = sysinfo.ReadScheduler(h.queue); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(offered, func(s string) bool { return s != h.was })
	if i < 0 {
		testutil.Missing(t, fmt.Sprintf("%s offers only the %s scheduler", dev, h.was))
	}
	h.to = offered[i]
	t.Cleanup(func() {
		if h.schedulerChanged(t) {
			sysinfo.SetScheduler(h.queue, h.was)
		}
		if m := tmpfsMount(t); m != "" {
			syscall.Unmount(m, syscall.MNT_DETACH)
		}
	})
	return h
}

func (h *changedHost) schedulerChanged(t *testing.T) bool {
	t.Helper()
	now, _, err := sysinfo.ReadScheduler(h.queue)
	if err != nil {
		t.Fatal(err)
	}
	return now != h.was
}

// leftApplied counts the changes still on the host: the tmpfs mount and
// the scheduler.
func (h *changedHost) leftApplied(t *testing.T) int {
	t.Helper()
	n := 0
	if tmpfsMount(t) != "" {
		n++
	}
	if h.schedulerChanged(t) {
		n++
	}
	return n
}

// playbook writes a walk whose second step changes the scheduler and
// mounts a tmpfs for seconds (the scheduler first: on the tmpfs there is
// no queue), and whose third, reached either way, runs a shell command
// that leaves a file: proof that it ran.
func (h *changedHost) playbook(t *testing.T, seconds int, revert string) string {
	t.Helper()
	yaml := fmt.Sprintf(`name: changed
description: A step that changes the host, to be stopped.
workload: {workload: fsync, bs: 4k, file_size: 8MiB, sync: fdatasync}
duration: 6s
warmup: 1s
steps:
  - id: reproduce
    title: Reproduce
    hypothesis: The writes are slow here.
    reproduce: true
    persists: changed
    gone: changed
  - id: changed
    title: Another scheduler, and tmpfs
    hypothesis: The queue or the disk.
    duration: %ds
    knobs:
      - knob: scheduler
        with: {value: %s}
      - knob: tmpfs
        with: {size: 64m}
      - knob: shell
        with: {apply: "true", revert: %q}
    persists: after
    gone: after
    unavailable: after
  - id: after
    title: After
    hypothesis: Never asked.
    knobs:
      - knob: shell
        with: {apply: "touch %s", revert: "true"}
    persists: {conclude: "after persists"}
    gone: {conclude: "after gone"}
    unavailable: {conclude: "after unavailable"}
`, seconds, h.to, revert, h.afterMark())
	p := filepath.Join(t.TempDir(), "changed.yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func (h *changedHost) afterMark() string { return filepath.Join(filepath.Dir(h.dir), "after-ran") }

// waitApplied waits until the log says the changed step's knobs are all
// applied, and checks that the host shows them.
func (h *changedHost) waitApplied(t *testing.T, rec string, out fmt.Stringer) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if applied(t, rec, "changed") == 3 {
			if h.leftApplied(t) != 2 {
				t.Fatalf("the log says applied, the host shows %d of the 2 changes", h.leftApplied(t))
			}
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("the changed step never applied its knobs:\n%s", out)
}

// applied is how many knobs of step the log says were applied.
func applied(t *testing.T, rec, step string) int {
	evs, _, _ := session.ReadLogFile(rec)
	n := 0
	for _, e := range evs {
		if k, ok := e.Data.(*session.KnobEvent); ok && e.Step == step && k.Action == session.KnobApplied {
			n++
		}
	}
	return n
}

// putBack checks the host and the log after a walk that stopped: nothing
// left applied, every knob reverted in the log, which ends with the
// session's end as want, and the reports beside it.
func (h *changedHost) putBack(t *testing.T, rec string, want session.Ending) *session.SessionEnd {
	t.Helper()
	if n := h.leftApplied(t); n != 0 {
		t.Errorf("%d changes left on the host", n)
	}
	evs, bad, err := session.ReadLogFile(rec)
	if err != nil || len(bad) > 0 || len(evs) == 0 {
		t.Fatalf("log: %v %v", err, bad)
	}
	reverted := map[string]bool{}
	for _, e := range evs {
		if k, ok := e.Data.(*session.KnobEvent); ok && e.Step == "changed" && k.Action == session.KnobReverted {
			reverted[k.Change.Knob] = true
		}
	}
	if !reverted["scheduler"] || !reverted["tmpfs"] {
		t.Errorf("log: reverted %v, want scheduler and tmpfs", reverted)
	}
	end, ok := evs[len(evs)-1].Data.(*session.SessionEnd)
	if !ok || end.Ended != want {
		t.Fatalf("the log ends with %s %+v, want the session's end, %s", evs[len(evs)-1].Type, evs[len(evs)-1].Data, want)
	}
	base := strings.TrimSuffix(rec, ".jsonl")
	for _, ext := range []string{".md", ".html", ".json"} {
		if st, err := os.Stat(base + ext); err != nil || st.Size() == 0 {
			t.Errorf("report %s%s: %v", base, ext, err)
		}
	}
	return end
}

// exited waits until cmd ends, at most within after what happened to it,
// and says how long it took.
func exited(t *testing.T, cmd *exec.Cmd, within time.Duration, what string, out fmt.Stringer) time.Duration {
	t.Helper()
	since := time.Now()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(within):
		t.Fatalf("still running %v after %s:\n%s", within, what, out)
	}
	return time.Since(since)
}

// TestRunSignalsPutTheHostBack stops a headless walk with each signal
// while its step has a tmpfs mounted and the scheduler changed.
func TestRunSignalsPutTheHostBack(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			h := newChangedHost(t)
			rec := filepath.Join(t.TempDir(), "walk.jsonl")
			cmd := exec.Command(binary(t), "run", "--no-tui", "--yes", "--playbook", h.playbook(t, 120, "true"), "--dir", h.dir, "--record", rec)
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill() })
			h.waitApplied(t, rec, &out)
			time.Sleep(1500 * time.Millisecond) // a second or so into the step
			cmd.Process.Signal(sig)
			took := exited(t, cmd, 30*time.Second, sig.String(), &out)
			left := h.leftApplied(t)
			t.Logf("%v: exited %.2f s after the signal, %d knobs left applied", sig, took.Seconds(), left)
			if took > 10*time.Second {
				t.Errorf("took %v to stop after %v, want under 10s", took, sig)
			}
			if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
				t.Errorf("exit %d (%v), want 130:\n%s", code, cmd.ProcessState, out.String())
			}
			h.putBack(t, rec, session.EndInterrupted)
		})
	}
}

// TestRunClosedStdoutPutsTheHostBack closes the reader of the walk's stdout
// while its knobs are applied (as head does): the writes fail, the walk
// goes on, every knob is put back and the walk concludes.
func TestRunClosedStdoutPutsTheHostBack(t *testing.T) {
	h := newChangedHost(t)
	rec := filepath.Join(t.TempDir(), "walk.jsonl")
	cmd := exec.Command(binary(t), "run", "--no-tui", "--yes", "--playbook", h.playbook(t, 6, "true"), "--dir", h.dir, "--record", rec, "--max-duration", "6s")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	if _, err := bufio.NewReader(stdout).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	h.waitApplied(t, rec, &stderr)
	stdout.Close() // the next line the walk prints meets a closed pipe
	exited(t, cmd, time.Minute, "its stdout closed", &stderr)
	if ws := cmd.ProcessState.Sys().(syscall.WaitStatus); ws.Signaled() || ws.ExitStatus() != 0 {
		t.Errorf("ended %v, want exit 0 (a conclusion despite the closed stdout):\n%s", cmd.ProcessState, stderr.String())
	}
	h.putBack(t, rec, session.EndConcluded)
}

// TestRunFailedRevertStopsTheWalk: a shell knob whose revert fails ends the
// walk failed, exit 1, and the step after it never runs.
func TestRunFailedRevertStopsTheWalk(t *testing.T) {
	h := newChangedHost(t)
	rec := filepath.Join(t.TempDir(), "walk.jsonl")
	// A failed revert keeps its journal entry, on purpose: in a journal of
	// its own, so that it does not stop the other tests' walks.
	jdir := t.TempDir()
	cmd := exec.Command(binary(t), "run", "--no-tui", "--yes", "--playbook", h.playbook(t, 6, "echo device busy >&2; exit 3"), "--dir", h.dir, "--record", rec, "--max-duration", "6s")
	cmd.Env = append(os.Environ(), journal.DirEnv+"="+jdir)
	out, _ := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != exitFailure {
		t.Errorf("exit %d, want 1:\n%s", code, out)
	}
	end := h.putBack(t, rec, session.EndFailed)
	for _, want := range []string{"REVERT FAILED in step changed", "shell", "device busy", "put it back by hand", "walk stops"} {
		if !strings.Contains(end.Error, want) {
			t.Errorf("session end %q does not say %q", end.Error, want)
		}
	}
	if !strings.Contains(string(out), "REVERT FAILED") {
		t.Errorf("the output does not say the revert failed:\n%s", out)
	}
	if _, err := os.Stat(h.afterMark()); !os.IsNotExist(err) {
		t.Errorf("the step after the failed revert ran (%v)", err)
	}
	evs, _, _ := session.ReadLogFile(rec)
	for _, e := range evs {
		if e.Step == "after" && e.Type == session.TypeStepStart {
			t.Error("the log shows the step after the failed revert starting")
		}
	}
	// What could not be put back is left for perfbisect recover.
	if left, err := os.ReadDir(jdir); err != nil || len(left) != 1 {
		t.Errorf("journal after a failed revert: %v %v, want the one change kept", left, err)
	}
}

// TestTUIKilledSessionPutsTheHostBack closes the screen's terminal with
// tmux kill-session while its step has the host changed.
func TestTUIKilledSessionPutsTheHostBack(t *testing.T) {
	h := newChangedHost(t)
	rec := filepath.Join(t.TempDir(), "walk.jsonl")
	s := newScreen(t, 100, 30, binary(t)+" run --yes --playbook "+h.playbook(t, 120, "true")+" --dir "+h.dir+" --record "+rec)
	s.waitFor("press enter to run the first step", 20*time.Second)
	s.keys("Enter")
	s.waitFor("next: changed", 40*time.Second)
	s.keys("Enter")
	h.waitApplied(t, rec, stringer(s.capture))
	time.Sleep(1500 * time.Millisecond)
	s.tmux("kill-session", "-t", "pb")
	sent := time.Now()
	for alive := true; alive; {
		if time.Since(sent) > 30*time.Second {
			t.Fatal("perfbisect still running 30s after its terminal closed")
		}
		time.Sleep(100 * time.Millisecond)
		alive = len(testutil.Processes(t, func(p testutil.Process) bool { return p.HasArg(rec) })) > 0
	}
	t.Logf("tmux kill-session: exited %.2f s after it, %d knobs left applied", time.Since(sent).Seconds(), h.leftApplied(t))
	h.putBack(t, rec, session.EndInterrupted)
}

// stringer shows the screen in a failure.
type stringer func() string

func (f stringer) String() string { return f() }
