package tool

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/probe"
)

// fioSpec is a fio job given by its arguments, run in dir.
func fioSpec(dir string, d time.Duration, args string) probe.Spec {
	s := spec(probe.WorkloadFio, d)
	s.Dir, s.Args = dir, args
	return s
}

func TestFio(t *testing.T) {
	need(t, "fio")
	dir := testDir(t)
	w := newWorkload(t, fioSpec(dir, 4*time.Second, "--name=probe --rw=write --bs=4k --size=8m --ioengine=sync --fdatasync=1"))
	ss, sum := collect(t, context.Background(), w, 20*time.Second)
	checkSamples(t, ss)
	if len(ss) < 3 {
		t.Fatalf("%d samples, want at least 3: %+v, summary %+v", len(ss), ss, sum)
	}
	for _, x := range ss {
		if x.OpsPerS <= 0 || !x.Real.Has(probe.FieldOps|probe.FieldMiB) {
			t.Errorf("sample %+v: want ops > 0 and Real with ops and MiB", x)
		}
		// json+ histograms give honest per-second percentiles.
		if !x.Real.Has(probe.FieldP99) || x.P99Ms <= 0 {
			t.Errorf("sample %+v: want the second's p99 from fio's histogram", x)
		}
	}
	if sum.Ended != probe.EndCompleted || sum.Error != "" || sum.Ops == 0 || sum.DurationS != float64(len(ss)) {
		t.Errorf("summary %+v", sum)
	}
	if !sum.Real.Has(probe.FieldOps|probe.FieldMiB|probe.FieldP99|probe.FieldMax|probe.FieldAvg) || sum.P99Ms <= 0 {
		t.Errorf("summary Real %v, p99 %v: want latencies from fio's final report", sum.Real, sum.P99Ms)
	}
	if sum.Workload.Dir != dir {
		t.Errorf("summary's Dir %q, want %q", sum.Workload.Dir, dir)
	}
	nothingLeft(t, dir, "fio's files")
}

func TestFioCancel(t *testing.T) {
	need(t, "fio")
	dir := testDir(t)
	w := newWorkload(t, fioSpec(dir, 30*time.Second, "--name=probe --rw=write --bs=4k --size=8m --fdatasync=1"))
	ss, sum, closedIn := cancelAfter(t, w, 2500*time.Millisecond)
	if closedIn > 3*time.Second {
		t.Errorf("the channel closed %v after the cancel", closedIn)
	}
	if sum.Ended != probe.EndInterrupted || len(ss) < 2 || sum.DurationS != float64(len(ss)) {
		t.Errorf("%d samples, summary %+v: want the 2 seconds printed before the cancel, interrupted", len(ss), sum)
	}
	// On SIGINT fio writes its final report: its latencies are kept.
	if !sum.Real.Has(probe.FieldP99) {
		t.Errorf("summary Real %v: want fio's final report's latencies", sum.Real)
	}
	nothingLeft(t, dir, "fio's files")
}

// cancelAfter runs w and cancels it after d; it returns the samples, the
// summary and how long the channel took to close after the cancel.
func cancelAfter(t *testing.T, w probe.Workload, d time.Duration) ([]probe.Sample, probe.Summary, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := w.Run(ctx)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	var cancelled time.Time
	time.AfterFunc(d, func() { cancelled = time.Now(); cancel() })
	var ss []probe.Sample
	timeout := time.After(d + 15*time.Second)
	for {
		select {
		case x, ok := <-ch:
			if !ok {
				in := time.Since(cancelled)
				t.Logf("closed %v after the cancel, %d samples", in.Round(time.Millisecond), len(ss))
				return ss, w.Result(), in
			}
			ss = append(ss, x)
		case <-timeout:
			t.Fatalf("the channel did not close after the cancel")
		}
	}
}

func TestFioBadOption(t *testing.T) {
	need(t, "fio")
	dir := testDir(t)
	w := newWorkload(t, fioSpec(dir, 3*time.Second, "--name=probe --rw=sideways --size=1m"))
	ch, err := w.Run(context.Background())
	if err == nil {
		for range ch {
		}
		t.Fatalf("Run took a bad option; summary %+v", w.Result())
	}
	for _, want := range []string{"fio does not take the job", "rw=sideways", "--args"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	nothingLeft(t, dir, "what the failed prepare made")
}

func TestFioOptionsItSetsItself(t *testing.T) {
	s := spec(probe.WorkloadFio, 3*time.Second)
	s.Args = "--name=x --output-format=normal"
	if _, err := New(s); err == nil || !strings.Contains(err.Error(), "remove it") {
		t.Errorf("New with --output-format: %v", err)
	}
	s.Args = `--name="unclosed`
	if _, err := New(s); err == nil || !strings.Contains(err.Error(), "not closed") {
		t.Errorf("New with an open quote: %v", err)
	}
}

func TestFioJobFileChoosesItsFiles(t *testing.T) {
	dir := t.TempDir()
	for name, u := range map[string]struct {
		text string
		want bool
	}{
		"filename":  {"[j]\nfilename=/dev/nvme1n1\nrw=write\n", true},
		"directory": {"[global]\n  directory = /data\n[j]\n", true},
		"neither":   {"[j]\nrw=write\nsize=1m\n", false},
	} {
		t.Run(name, func(t *testing.T) {
			path := dir + "/" + name + ".fio"
			if err := os.WriteFile(path, []byte(u.text), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := jobFilePlaces(path)
			if err != nil || got != u.want {
				t.Errorf("jobFilePlaces = %v, %v; want %v", got, err, u.want)
			}
		})
	}
}
