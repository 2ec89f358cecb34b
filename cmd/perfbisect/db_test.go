package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/testutil"
	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/session"
)

// TestDatabaseWalk walks local-disk with a real database workload, as the
// seeds did by hand: sysbench oltp_insert on a managed MariaDB, and pgbench
// on a managed PostgreSQL, each step with a server of its own in the step's
// data dir (on a throttled loop device, so the scheduler step changes no
// real disk and the syncs cost what they do on a slow volume).
// With the server's syncs off the database must be faster than in the
// reproduce step; afterwards no server, data dir or tmpfs may be left.
func TestDatabaseWalk(t *testing.T) {
	testutil.RequireRoot(t)
	uu := []struct {
		name  string
		tools []string
		args  []string
		real  probe.Fields
	}{
		{"mariadb-sysbench", []string{"sysbench", "mariadbd"},
			[]string{"--workload", "sysbench", "--test", "oltp_insert", "--table-size", "1000"},
			probe.FieldOps | probe.FieldP95 | probe.FieldErrors},
		{"postgresql-pgbench", []string{"pgbench"},
			[]string{"--workload", "pgbench", "--scale", "1"},
			probe.FieldOps | probe.FieldAvg | probe.FieldErrors},
	}
	for _, u := range uu {
		t.Run(u.name, func(t *testing.T) {
			for _, tool := range u.tools {
				testutil.RequireTool(t, tool)
			}
			dbWalk(t, u.args, u.real)
		})
	}
}

func dbWalk(t *testing.T, workload []string, real probe.Fields) {
	dev, mnt := testutil.LoopExt4(t, 2<<30)
	// At 400 write IOPS a commit's flush, not the two shared CPUs, is what
	// the database waits on, as on the seeds' gp2 volume: otherwise the
	// servers here are CPU-bound and syncs off can measure no faster.
	throttled := testutil.Throttled(t, dev, 400)
	passable(t, mnt) // PostgreSQL runs as postgres and must reach its data dir
	data := filepath.Join(mnt, "data")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(t.TempDir(), "walk.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	args := append([]string{"run", "--no-tui", "--yes", "--playbook", "local-disk", "--dir", data, "--duration", "8s", "--record", rec}, workload...)
	out, err := throttled(ctx, binary(t), args...).CombinedOutput()
	if err != nil {
		t.Fatalf("perfbisect %s: %v\n%s", strings.Join(args, " "), err, out)
	}

	evs, bad, err := session.ReadLogFile(rec)
	if err != nil || len(bad) > 0 {
		t.Fatalf("log: %v %v", err, bad)
	}
	samples := map[string][]probe.Sample{}
	states := map[string]session.State{}
	var fsyncAfter string
	for _, e := range evs {
		switch d := e.Data.(type) {
		case *probe.Sample:
			samples[e.Step] = append(samples[e.Step], *d)
			if d.Real != real {
				t.Errorf("step %s second %d measured %v, want exactly %v", e.Step, d.Sec, d.Real, real)
			}
		case *session.StepEnd:
			states[e.Step] = d.State
		case *session.KnobEvent:
			if d.Action == session.KnobApplied && d.Change.Knob == "fsync" {
				fsyncAfter = d.Change.After
			}
		}
	}
	for _, step := range []string{"reproduce", "tmpfs", "fsync"} {
		if len(samples[step]) < 5 {
			t.Fatalf("step %s: %d seconds measured (state %s), want at least 5\n%s", step, len(samples[step]), states[step], out)
		}
	}
	if !strings.Contains(fsyncAfter, "syncs off") {
		t.Errorf("fsync knob: After %q, want the server's sync settings", fsyncAfter)
	}
	tps := func(step string) float64 { return median(samples[step], probe.FieldOps) }
	lat := real &^ (probe.FieldOps | probe.FieldErrors)
	for _, step := range []string{"reproduce", "tmpfs", "fsync"} {
		t.Logf("%-9s %8.0f tps, median %v %.3f ms (%d s)", step, tps(step), lat, median(samples[step], lat), len(samples[step]))
	}
	if tps("fsync") <= tps("reproduce") {
		t.Errorf("with syncs off %.0f tps, on the disk %.0f tps: want faster without syncs", tps("fsync"), tps("reproduce"))
	}

	// Nothing is left: no server, no data dir, no tmpfs.
	if left := testutil.Entries(t, data); len(left) > 0 {
		t.Errorf("left in the data dir: %v", left)
	}
	if m := tmpfsMount(t); m != "" {
		t.Errorf("tmpfs still mounted on %s", m)
	}
	if procs := processesUsing(t, mnt); len(procs) > 0 {
		t.Errorf("processes still using %s: %v", mnt, procs)
	}
	report, err := os.ReadFile(strings.TrimSuffix(rec, ".jsonl") + ".md")
	if err != nil {
		t.Fatalf("report: %v", err)
	}
	if name := lat.Names()[0]; !strings.Contains(string(report), strings.TrimSuffix(name, "_ms")+" ms per second") {
		t.Errorf("the report does not chart %s, the latency the workload measured", name)
	}
}

// passable lets other users through every directory from dir up to the
// temporary directory, as a data dir that a postgres server must reach.
func passable(t *testing.T, dir string) {
	t.Helper()
	for d := dir; d != filepath.Dir(d) && d != os.TempDir(); d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, fi.Mode().Perm()|0o011); err != nil {
			t.Fatal(err)
		}
	}
}

func median(ss []probe.Sample, f probe.Field) float64 {
	var vs []float64
	for _, s := range ss {
		if v, ok := s.Get(f); ok {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return 0
	}
	slices.Sort(vs)
	return vs[len(vs)/2]
}

// processesUsing lists the processes whose command line names a path
// under dir: a server left running there.
func processesUsing(t *testing.T, dir string) []testutil.Process {
	t.Helper()
	return testutil.Processes(t, func(p testutil.Process) bool { return p.HasArg(dir) && !p.HasArg("losetup") })
}

// A missing sysbench or MariaDB is found before the walk starts: exit 1,
// the packages named, no session log made.
func TestWalkMissingTools(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	rec := filepath.Join(t.TempDir(), "walk.jsonl")
	code, _, stderr := runCLI(t, context.Background(), "run", "--no-tui", "--yes", "--workload", "sysbench", "--dir", t.TempDir(), "--record", rec)
	if code != exitFailure || !strings.Contains(stderr, "apt install sysbench") || !strings.Contains(stderr, "mariadb-server") {
		t.Errorf("exit %d, stderr %q; want 1 naming the sysbench and mariadb-server packages", code, stderr)
	}
	if _, err := os.Stat(rec); !os.IsNotExist(err) {
		t.Errorf("a session log was made (%v): nothing should start", err)
	}
}

// TestDatabaseWalkKilled: perfbisect killed with SIGKILL mid-step cannot
// clean up, but its agent sees its stdin close and stops the sysbench run
// and the managed server, and removes the server's data dir.
func TestDatabaseWalkKilled(t *testing.T) {
	testutil.RequireRoot(t)
	testutil.RequireTool(t, "sysbench")
	testutil.RequireTool(t, "mariadbd")
	data := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(t.TempDir(), "walk.jsonl")
	cmd := exec.Command(binary(t), "run", "--no-tui", "--yes", "--workload", "sysbench", "--table-size", "1000",
		"--dir", data, "--duration", "60s", "--record", rec)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	waitUntil(t, 60*time.Second, "the first sample in the log", func() (bool, string) {
		b, _ := os.ReadFile(rec)
		return strings.Contains(string(b), `"type":"sample"`), fmt.Sprintf("%d bytes of log", len(b))
	})
	if len(processesUsing(t, data)) == 0 || len(testutil.Entries(t, data)) == 0 {
		t.Fatalf("no server running in %s while measuring", data)
	}
	cmd.Process.Kill()
	cmd.Wait()
	waitUntil(t, 30*time.Second, "the server stopped and its data dir removed", func() (bool, string) {
		procs, files := processesUsing(t, data), testutil.Entries(t, data)
		return len(procs) == 0 && len(files) == 0, fmt.Sprintf("processes %q, files %q", procs, files)
	})
}

// waitUntil polls ok until it holds, or fails the test after limit saying
// what was awaited and, as ok says it, what stood instead.
func waitUntil(t *testing.T, limit time.Duration, what string, ok func() (bool, string)) {
	t.Helper()
	for end := time.Now().Add(limit); ; time.Sleep(100 * time.Millisecond) {
		done, now := ok()
		if done {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("after %v: not yet %s (%s)", limit, what, now)
		}
	}
}
