package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/testutil"
	"github.com/perfbisect/perfbisect/session"
)

// screen drives the real binary in a real terminal: tmux, on a socket of
// the test's own.
type screen struct {
	t      *testing.T
	socket string
}

func newScreen(t *testing.T, w, h int, command string) *screen {
	t.Helper()
	testutil.RequireTool(t, "tmux")
	s := &screen{t: t, socket: "perfbisect-test-" + filepath.Base(t.TempDir())}
	s.tmux("new-session", "-d", "-s", "pb", "-x", itoa(w), "-y", itoa(h), command)
	t.Cleanup(func() { exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	return s
}

func (s *screen) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", s.socket}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (s *screen) keys(k ...string) { s.tmux(append([]string{"send-keys", "-t", "pb"}, k...)...) }

func (s *screen) capture() string { return s.tmux("capture-pane", "-p", "-t", "pb") }

// waitFor waits until the screen shows want, and returns the screen.
func (s *screen) waitFor(want string, within time.Duration) string {
	s.t.Helper()
	deadline := time.Now().Add(within)
	var last string
	for time.Now().Before(deadline) {
		if last = s.capture(); strings.Contains(last, want) {
			return last
		}
		time.Sleep(200 * time.Millisecond)
	}
	s.t.Fatalf("the screen never showed %q; last:\n%s", want, last)
	return ""
}

// TestSmokeTUIInTmux walks local-disk in the real binary, in a real
// terminal of 80x24: reproduce, then tmpfs through its confirmation
// dialog, then quits, and checks the host and the log afterwards.
func TestSmokeTUIInTmux(t *testing.T) {
	testutil.RequireRoot(t)
	dir := t.TempDir()
	rec := filepath.Join(dir, "walk.jsonl")
	cmd := binary(t) + " run --playbook local-disk --duration 7s --dir " + filepath.Join(dir, "data") + " --record " + rec + "; echo PERFBISECT-EXIT=$?; sleep 60"
	s := newScreen(t, 80, 24, cmd)

	first := s.waitFor("press enter to run the first step", 20*time.Second)
	for _, want := range []string{"LIVE", "reproduce", "tmpfs", "fsync", "scheduler", "pending", "enter run next step"} {
		if !strings.Contains(first, want) {
			t.Errorf("first screen lacks %q:\n%s", want, first)
		}
	}
	s.keys("Enter")
	s.waitFor("running", 10*time.Second)
	s.waitFor("throughput", 5*time.Second)
	s.waitFor("next: tmpfs", 30*time.Second)

	s.keys("Enter")
	dialog := s.waitFor("apply these changes? [y/N]", 15*time.Second)
	if !strings.Contains(dialog, "mount -t tmpfs") || !strings.Contains(dialog, "put back: umount") {
		t.Errorf("the dialog does not say what will be done and undone:\n%s", dialog)
	}
	s.keys("y")
	s.waitFor("gone", 40*time.Second)
	s.keys("q")
	s.waitFor("PERFBISECT-EXIT=0", 15*time.Second)

	tmpfsPutBack(t, rec, session.EndQuit)
}
