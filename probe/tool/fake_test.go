package tool

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/proc"
	"github.com/perfbisect/perfbisect/internal/proc/proctest"
	"github.com/perfbisect/perfbisect/probe"
)

// These tests put proctest's fake runner in place of the programs: they
// check the exact commands a workload runs and what it makes of their
// output, in milliseconds and with nothing installed. The tests beside
// them run the real programs.

// fakeProgram puts an executable called name alone on PATH, for the
// workload to find; the fake runner answers in its place, and running it
// for real would fail.
func fakeProgram(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte("#!/bin/sh\necho 'proctest: the fake runner should have answered' >&2\nexit 99\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	return path
}

// existingSysbench is a sysbench workload against an existing server, and
// the argv of sysbench with test and command.
func existingSysbench(t *testing.T) (probe.Spec, func(test string, rest ...string) []string) {
	bin := fakeProgram(t, "sysbench")
	s := sysbenchSpec(t.TempDir(), 3*time.Second)
	s.DB, s.DBHost, s.DBPort, s.DBUser, s.DBName = probe.DBExisting, "db.example", 3307, "bench", "sbtest"
	return s, func(test string, rest ...string) []string {
		return append([]string{bin, test, "--db-driver=mysql", "--mysql-host=db.example", "--mysql-port=3307", "--mysql-user=bench",
			"--mysql-db=sbtest", "--tables=1", "--table-size=1000", "--threads=" + strconv.Itoa(s.Threads)}, rest...)
	}
}

func TestFakeSysbenchExisting(t *testing.T) {
	s, argv := existingSysbench(t)
	out, err := os.ReadFile("../parse/testdata/sysbench-1.0.20-oltp_insert-disk.txt")
	if err != nil {
		t.Fatal(err)
	}
	f := proctest.New(t)
	f.ExpectRun(argv("/dev/fd/3", "tables")...).Stdout("table: other\n")
	f.ExpectRun(argv("oltp_insert", "prepare")...)
	f.ExpectStart(argv("oltp_insert", "--time=3", "--report-interval=1", "--percentile=95", "run")...).Stdout(string(out))
	// prepare made the tables on someone else's server: they go.
	f.ExpectRun(argv("oltp_insert", "cleanup")...)
	w, err := NewWith(s, f)
	if err != nil {
		t.Fatal(err)
	}
	ss, sum := collect(t, t.Context(), w, 10*time.Second)
	if len(ss) != 11 || ss[0].OpsPerS != 4328.05 || sum.Ended != probe.EndCompleted || sum.Error != "" {
		t.Errorf("%d samples (first %+v), summary %+v: want the 11 seconds of the canned output", len(ss), ss[0], sum)
	}
}

// A failed prepare quotes sysbench's first error, which came before the
// lines that explain nothing, and the tables it may have made still go.
func TestFakeSysbenchPrepareFails(t *testing.T) {
	s, argv := existingSysbench(t)
	f := proctest.New(t)
	f.ExpectRun(argv("/dev/fd/3", "tables")...)
	f.ExpectRun(argv("oltp_insert", "prepare")...).
		Stdout("sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)\n").
		Stderr("FATAL: unable to connect to MySQL server on host 'db.example', port 3307, aborting...\n" +
			"stack traceback:\n\t[C]: in function 'assert'\n\t[string \"sysbench.cmdline.lua\"]:70: in function 'call'\n" +
			"\t[C]: in function 'connect'\n\t[string \"oltp_common.lua\"]:83: in function 'prepare'\n" +
			"\t[string \"sysbench.cmdline.lua\"]:135: in function <cmdline.lua:132>\n").
		Exit(1)
	f.ExpectRun(argv("oltp_insert", "cleanup")...)
	w, err := NewWith(s, f)
	if err != nil {
		t.Fatal(err)
	}
	_, err = w.Run(t.Context())
	want := "sysbench prepare failed (exit status 1): FATAL: unable to connect to MySQL server on host 'db.example', port 3307, aborting... | … | stack traceback: | " +
		"[C]: in function 'assert' | [string \"sysbench.cmdline.lua\"]:70: in function 'call' | [C]: in function 'connect' | " +
		"[string \"oltp_common.lua\"]:83: in function 'prepare' | [string \"sysbench.cmdline.lua\"]:135: in function <cmdline.lua:132>"
	if err == nil || err.Error() != want {
		t.Errorf("Run: %v\nwant %s", err, want)
	}
}

// The tables check finds the test's own table names: prepare must not run.
func TestFakeSysbenchTablesThere(t *testing.T) {
	s, argv := existingSysbench(t)
	f := proctest.New(t)
	f.ExpectRun(argv("/dev/fd/3", "tables")...).Stdout("table: sbtest1\n")
	w, _ := NewWith(s, f)
	if _, err := w.Run(t.Context()); err == nil || !strings.Contains(err.Error(), "sbtest1 already in database sbtest: drop them") {
		t.Errorf("Run: %v", err)
	}
}

func fakeCommand(t *testing.T, script string) (probe.Spec, []string) {
	s := commandSpec(t.TempDir(), 5*time.Second)
	s.Command = script
	fakeProgram(t, "sysbench") // PATH without stdbuf
	return s, []string{shell, "-c", script}
}

func TestFakeCommand(t *testing.T) {
	s, argv := fakeCommand(t, "my-bench --live")
	f := proctest.New(t)
	f.ExpectStart(argv...).InDir(s.Dir).WithEnv("PERFBISECT_DIR=" + s.Dir).
		Stdout("starting\ntps=100 lat=1.5\n").Stderr("a warning\n").Stdout("tps=200\n")
	w, _ := NewWith(s, f)
	ss, sum := collect(t, t.Context(), w, 10*time.Second)
	if len(ss) != 2 || ss[1].OpsPerS != 200 || sum.Ended != probe.EndCompleted || sum.Ops != 300 {
		t.Errorf("%d samples %+v, summary %+v", len(ss), ss, sum)
	}
}

func TestFakeCommandFails(t *testing.T) {
	for name, u := range map[string]struct {
		call func(*proctest.Call)
		want string
	}{
		"exit": {func(c *proctest.Call) {
			c.Stdout("tps=5\n").Stderr("my-bench: cannot open /nonexistent/db: No such file or directory\n").Exit(1)
		}, `command "my-bench" failed (exit status 1): my-bench: cannot open /nonexistent/db: No such file or directory; the run was cut short after 1 s`},
		"no report": {func(c *proctest.Call) { c.Stdout("throughput 100\n") },
			`command "my-bench" gave no per-second report: throughput 100`},
	} {
		t.Run(name, func(t *testing.T) {
			s, argv := fakeCommand(t, "my-bench")
			f := proctest.New(t)
			u.call(f.ExpectStart(argv...))
			w, _ := NewWith(s, f)
			_, sum := collect(t, t.Context(), w, 10*time.Second)
			if sum.Ended != probe.EndFailed || sum.Error != u.want {
				t.Errorf("summary %s: %q\nwant failed: %q", sum.Ended, sum.Error, u.want)
			}
		})
	}
}

// A cancelled run is interrupted, keeps what it measured, and its program
// is stopped with the tools' signal.
func TestFakeCommandCancel(t *testing.T) {
	s, argv := fakeCommand(t, "my-bench")
	f := proctest.New(t)
	var stop []proc.Step
	f.ExpectStart(argv...).Stdout("tps=7\n").Hold().Do(func(c proc.Cmd) { stop = c.Stop })
	w, _ := NewWith(s, f)
	ctx, cancel := context.WithCancel(t.Context())
	ch, err := w.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if first := <-ch; first.OpsPerS != 7 {
		t.Errorf("first sample %+v", first)
	}
	cancel()
	for range ch {
	}
	if sum := w.Result(); sum.Ended != probe.EndInterrupted || sum.Ops != 7 {
		t.Errorf("summary %+v: want interrupted after 1 s", sum)
	}
	// SIGINT to its group first: fio writes its final report on it, and
	// every program of a command's pipeline gets it.
	if len(stop) == 0 || stop[0].Signal != syscall.SIGINT || stop[0].Leader || stop[0].CloseStdin {
		t.Errorf("stop sequence %+v, want SIGINT to the process group first", stop)
	}
}
