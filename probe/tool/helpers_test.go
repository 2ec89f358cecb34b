package tool

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/testutil"
	"github.com/perfbisect/perfbisect/probe"
)

// need skips the test when a program is missing, or fails it in CI, where
// .ci/run installs them all.
func need(t *testing.T, programs ...string) {
	t.Helper()
	for _, p := range programs {
		if _, err := exec.LookPath(p); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is not installed, and CI must run this test: %v", p, err)
			}
			t.Skipf("%s is not installed: %v", p, err)
		}
	}
}

// testDir is a directory a server running as another user (postgres) can
// reach: t.TempDir's parents are 0700.
func testDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/tmp", "perfbisect-tool-test-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// collect runs w to its end and returns its samples and summary, failing
// the test if Run fails or the run does not end within limit.
func collect(t *testing.T, ctx context.Context, w probe.Workload, limit time.Duration) ([]probe.Sample, probe.Summary) {
	t.Helper()
	t0 := time.Now()
	ch, err := w.Run(ctx)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	t.Logf("prepared in %v", time.Since(t0).Round(time.Millisecond))
	var got []probe.Sample
	timeout := time.After(limit)
	for {
		select {
		case s, ok := <-ch:
			if !ok {
				return got, w.Result()
			}
			got = append(got, s)
		case <-timeout:
			t.Fatalf("the run did not end within %v; %d samples so far", limit, len(got))
		}
	}
}

// checkSamples checks what holds for every sample of a tool.
func checkSamples(t *testing.T, ss []probe.Sample) {
	t.Helper()
	for i, s := range ss {
		if s.Real == 0 {
			t.Errorf("sample %d has no Real: %+v", i, s)
		}
		if i > 0 && s.Sec <= ss[i-1].Sec {
			t.Errorf("sample %d: second %d after %d", i, s.Sec, ss[i-1].Sec)
		}
	}
	if len(ss) > 0 && ss[0].Sec != 1 {
		t.Errorf("the first sample is second %d, want 1", ss[0].Sec)
	}
}

// processesMentioning lists the other processes whose command line or
// environment holds s (as the tools run in a test's directory, this finds
// what they left behind).
func processesMentioning(t *testing.T, s string) []testutil.Process {
	t.Helper()
	return testutil.Processes(t, func(p testutil.Process) bool { return p.Pid != os.Getpid() && p.Mentions(s) })
}

// nothingLeft checks that a run left nothing behind in dir: neither what
// (its files, named for the message) nor a process started there.
func nothingLeft(t *testing.T, dir, what string) {
	t.Helper()
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("%s still in %s: %v", what, dir, left)
	}
	noProcessesLeft(t, dir)
}

func noProcessesLeft(t *testing.T, marker string) {
	t.Helper()
	// SIGKILLed processes may take a moment to be gone from /proc.
	for range 20 {
		if len(processesMentioning(t, marker)) == 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("processes left running: %v", processesMentioning(t, marker))
}

func spec(workload string, d time.Duration) probe.Spec {
	s := probe.DefaultFor(workload)
	s.Duration = probe.Duration(d)
	return s
}

// newWorkload is New(s), failing the test when s is refused.
func newWorkload(t *testing.T, s probe.Spec) probe.Workload {
	t.Helper()
	w, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	return w
}
