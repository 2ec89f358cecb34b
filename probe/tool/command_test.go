package tool

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/probe"
)

// tpsLoop prints a line a second, with other chatter around it.
const tpsLoop = `echo "starting in $PERFBISECT_DIR"; i=0; while :; do i=$((i+1)); echo "tps=$((100*i)) lat=1.5"; echo "a warning" >&2; sleep 1; done`

func commandSpec(dir string, d time.Duration) probe.Spec {
	s := spec(probe.WorkloadCommand, d)
	s.Dir = dir
	s.Command = tpsLoop
	s.Pattern = `tps=(?P<ops>[0-9.]+)(?: lat=(?P<lat_ms>[0-9.]+))?`
	return s
}

func TestCommand(t *testing.T) {
	need(t, "/bin/sh")
	dir := testDir(t)
	w := newWorkload(t, commandSpec(dir, 3*time.Second))
	ss, sum := collect(t, context.Background(), w, 15*time.Second)
	checkSamples(t, ss)
	// The loop prints at 0, 1 and 2 s, then the duration is over.
	if len(ss) < 3 || ss[0].OpsPerS != 100 || ss[1].OpsPerS != 200 {
		t.Fatalf("samples %+v, want tps=100, 200, …", ss)
	}
	for _, x := range ss {
		if x.Real != probe.FieldOps|probe.FieldAvg || x.AvgMs != 1.5 {
			t.Errorf("sample %+v: want ops and avg 1.5 ms", x)
		}
	}
	// A command has no final report: no latency in the summary.
	if sum.Ended != probe.EndCompleted || sum.Error != "" || sum.Real != probe.FieldOps || sum.AvgMs != 0 {
		t.Errorf("summary %+v", sum)
	}
	noProcessesLeft(t, dir)
}

func TestCommandCancel(t *testing.T) {
	need(t, "/bin/sh")
	dir := testDir(t)
	w := newWorkload(t, commandSpec(dir, 30*time.Second))
	ss, sum, closedIn := cancelAfter(t, w, 2500*time.Millisecond)
	if closedIn > 3*time.Second {
		t.Errorf("the channel closed %v after the cancel", closedIn)
	}
	// Lines at 0, 1 and 2 s were printed before the cancel: all kept.
	if len(ss) != 3 || sum.Ended != probe.EndInterrupted || sum.Ops != 600 || sum.DurationS != 3 {
		t.Errorf("%d samples %+v, summary %+v: want 3 seconds, interrupted", len(ss), ss, sum)
	}
	noProcessesLeft(t, dir)
}

// A program that ignores SIGINT and SIGTERM is killed.
func TestCommandStubborn(t *testing.T) {
	need(t, "/bin/sh")
	dir := testDir(t)
	s := commandSpec(dir, 30*time.Second)
	s.Command = `trap '' INT TERM; ` + tpsLoop
	w := newWorkload(t, s)
	ss, sum, closedIn := cancelAfter(t, w, 1500*time.Millisecond)
	if closedIn < killSlack-time.Second || closedIn > killSlack+2*time.Second {
		t.Errorf("the channel closed %v after the cancel, want about %v (SIGKILL)", closedIn, killSlack)
	}
	if len(ss) < 2 || sum.Ended != probe.EndInterrupted {
		t.Errorf("%d samples, summary %+v", len(ss), sum)
	}
	noProcessesLeft(t, dir)
}

func TestCommandFails(t *testing.T) {
	need(t, "/bin/sh")
	dir := testDir(t)
	s := commandSpec(dir, 5*time.Second)
	s.Command = `echo "my-bench: cannot open /nonexistent/db: No such file or directory" >&2; exit 1`
	w := newWorkload(t, s)
	ss, sum := collect(t, context.Background(), w, 10*time.Second)
	if len(ss) != 0 || sum.Ended != probe.EndFailed {
		t.Fatalf("%d samples, summary %+v: want failed", len(ss), sum)
	}
	for _, want := range []string{"exit status 1", "cannot open /nonexistent/db"} {
		if !strings.Contains(sum.Error, want) {
			t.Errorf("error %q does not say %q", sum.Error, want)
		}
	}
}

func TestCommandNeverMatches(t *testing.T) {
	need(t, "/bin/sh")
	s := commandSpec(testDir(t), 5*time.Second)
	s.Command = `echo "throughput 100"`
	w := newWorkload(t, s)
	_, sum := collect(t, context.Background(), w, 10*time.Second)
	if sum.Ended != probe.EndFailed || !strings.Contains(sum.Error, "no per-second report") || !strings.Contains(sum.Error, "throughput 100") {
		t.Errorf("summary %+v: want failed, quoting its output", sum)
	}
}

// A pipeline's programs write their lines as they come, not at the end.
func TestCommandPipelineIsLive(t *testing.T) {
	need(t, "/bin/sh", "stdbuf", "grep")
	s := commandSpec(testDir(t), 10*time.Second)
	s.Command = `for i in 1 2 3; do echo "tps=$i"; sleep 1; done | grep tps`
	w := newWorkload(t, s)
	ch, err := w.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	first, ok := <-ch
	if since := time.Since(t0); !ok || since > 800*time.Millisecond {
		t.Errorf("the first second came %v after the start (%+v): grep held it back", since, first)
	}
	for range ch {
	}
	if sum := w.Result(); sum.Ended != probe.EndCompleted || sum.Ops != 6 {
		t.Errorf("summary %+v", sum)
	}
}

// The directory perfbisect made for a command goes, the one it found stays.
func TestCommandDir(t *testing.T) {
	need(t, "/bin/sh")
	parent := testDir(t)
	made := filepath.Join(parent, "new")
	s := commandSpec(made, 2*time.Second)
	s.Command = `touch "$PERFBISECT_DIR/x"; echo tps=1`
	w := newWorkload(t, s)
	if _, sum := collect(t, context.Background(), w, 10*time.Second); sum.Ended != probe.EndCompleted {
		t.Fatalf("summary %+v", sum)
	}
	if _, err := os.Stat(made); !os.IsNotExist(err) {
		t.Errorf("the directory made for the command is still there: %v", err)
	}
	s.Dir = parent
	w, _ = New(s)
	collect(t, context.Background(), w, 10*time.Second)
	if _, err := os.Stat(filepath.Join(parent, "x")); err != nil {
		t.Errorf("the command's file in an existing directory: %v", err)
	}
}
