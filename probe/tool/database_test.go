package tool

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/testutil"
	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/db"
)

func needMariaDB(t *testing.T) {
	t.Helper()
	need(t, "sysbench")
	if err := db.Require(db.MariaDB); err != nil {
		need(t, "mariadbd") // skips, or fails in CI
		t.Fatal(err)
	}
}

func needPostgres(t *testing.T) {
	t.Helper()
	if _, err := findPgbench(); err != nil {
		need(t, "pgbench")
	}
	if err := db.Require(db.PostgreSQL); err != nil {
		need(t, "postgres")
		t.Fatal(err)
	}
}

// startServer starts a managed server of kind in a directory of its own,
// for a workload to find as an existing one; it is stopped when the test
// ends.
func startServer(t *testing.T, kind string) *db.Server {
	t.Helper()
	srv, err := db.Start(context.Background(), db.Options{Kind: kind, Dir: testDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Stop(context.Background()) })
	return srv
}

func sysbenchSpec(dir string, d time.Duration) probe.Spec {
	s := spec(probe.WorkloadSysbench, d)
	s.Dir, s.Tables, s.TableSize = dir, 1, 1000
	return s
}

// runManaged runs s, on a server the workload starts in s.Dir, to its end:
// at least three good seconds, and nothing left in s.Dir after.
func runManaged(t *testing.T, s probe.Spec) ([]probe.Sample, probe.Summary) {
	t.Helper()
	ss, sum := collect(t, context.Background(), newWorkload(t, s), 60*time.Second)
	nothingLeft(t, s.Dir, "the server's data dir")
	checkSamples(t, ss)
	if len(ss) < 3 {
		t.Fatalf("%d samples, want at least 3; summary %+v", len(ss), sum)
	}
	return ss, sum
}

func TestSysbenchManaged(t *testing.T) {
	needMariaDB(t)
	ss, sum := runManaged(t, sysbenchSpec(testDir(t), 4*time.Second))
	for _, x := range ss {
		if x.Real != probe.FieldOps|probe.FieldP95|probe.FieldErrors || x.OpsPerS <= 0 {
			t.Errorf("sample %+v: want ops > 0, Real ops, p95, errors", x)
		}
	}
	// sysbench's final report gives the run's percentile, max and average.
	want := probe.FieldOps | probe.FieldErrors | probe.FieldP95 | probe.FieldMax | probe.FieldAvg
	if sum.Ended != probe.EndCompleted || sum.Error != "" || sum.Real != want || sum.P95Ms <= 0 {
		t.Errorf("summary %+v, Real %v: want completed, Real %v", sum, sum.Real, want)
	}
}

// On an existing server, sysbench gets its password without a command
// line, drops the tables it created, and leaves those it found.
func TestSysbenchExisting(t *testing.T) {
	needMariaDB(t)
	ctx := context.Background()
	srv := startServer(t, db.MariaDB)
	const pw = `s3cr"t pw#`
	if _, err := srv.Query(ctx, `CREATE USER 'bench'@'localhost' IDENTIFIED BY 's3cr"t pw#'; GRANT ALL ON sbtest.* TO 'bench'@'localhost'`); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PERFBISECT_TEST_PW", pw)
	s := sysbenchSpec(testDir(t), 3*time.Second)
	// Two threads prepare two tables in parallel: one that exists would
	// fail one thread after the other created its table.
	s.Tables, s.Threads = 2, 2
	s.DB, s.DBSocket, s.DBUser, s.DBName, s.DBPasswordEnv = probe.DBExisting, srv.Conn.Socket, "bench", "sbtest", "PERFBISECT_TEST_PW"
	w := newWorkload(t, s)
	seen := make(chan []testutil.Process, 1)
	go func() {
		time.Sleep(1500 * time.Millisecond)
		seen <- cmdlinesWith(t, pw)
	}()
	ss, sum := collect(t, ctx, w, 30*time.Second)
	if len(ss) < 2 || sum.Ended != probe.EndCompleted {
		t.Fatalf("%d samples, summary %+v", len(ss), sum)
	}
	if pids := <-seen; len(pids) > 0 {
		t.Errorf("the password is on the command line of %v", pids)
	}
	if tables, err := srv.Query(ctx, "SHOW TABLES"); err != nil || tables != "" {
		t.Errorf("tables left after the run: %q, %v", tables, err)
	}
	leavesTablesItFound(t, srv, s, "CREATE TABLE sbtest1 (id INT PRIMARY KEY)", "SHOW TABLES", "sbtest1")
}

// leavesTablesItFound makes, with create, one of the tables a run of s
// would make on srv: a table the workload did not make is not its to drop,
// so the run must refuse to start and leave it (the query tables still
// reads want).
func leavesTablesItFound(t *testing.T, srv *db.Server, s probe.Spec, create, tables, want string) {
	t.Helper()
	ctx := context.Background()
	if _, err := srv.Query(ctx, create); err != nil {
		t.Fatal(err)
	}
	w := newWorkload(t, s)
	if _, err := w.Run(ctx); err == nil || !strings.Contains(err.Error(), "already in database "+s.DBName+": drop them") {
		t.Errorf("Run with the tables there: %v", err)
	}
	if got, _ := srv.Query(ctx, tables); strings.TrimSpace(got) != want {
		t.Errorf("%s after a refused run: %q, want %q, what was there", tables, got, want)
	}
}

func TestSysbenchCancel(t *testing.T) {
	needMariaDB(t)
	dir := testDir(t)
	w := newWorkload(t, sysbenchSpec(dir, 30*time.Second))
	ss, sum, closedIn := cancelAfter(t, w, 3500*time.Millisecond)
	// The channel closes after the managed server's shutdown.
	if closedIn > 10*time.Second {
		t.Errorf("the channel closed %v after the cancel", closedIn)
	}
	// sysbench dies on SIGINT without a final report: no latency summary.
	if len(ss) < 2 || sum.Ended != probe.EndInterrupted || sum.Real != probe.FieldOps|probe.FieldErrors {
		t.Errorf("%d samples, summary %+v, Real %v", len(ss), sum, sum.Real)
	}
	nothingLeft(t, dir, "the server's data dir")
}

// cmdlinesWith lists the other processes with s in their command line.
func cmdlinesWith(t *testing.T, s string) []testutil.Process {
	t.Helper()
	return testutil.Processes(t, func(p testutil.Process) bool { return p.Pid != os.Getpid() && p.HasArg(s) })
}

func TestPgbenchManaged(t *testing.T) {
	needPostgres(t)
	s := spec(probe.WorkloadPgbench, 4*time.Second)
	s.Dir, s.Scale = testDir(t), 1
	ss, sum := runManaged(t, s)
	for _, x := range ss {
		if !x.Real.Has(probe.FieldOps|probe.FieldAvg) || x.OpsPerS <= 0 || x.AvgMs <= 0 {
			t.Errorf("sample %+v: want ops and the second's average latency", x)
		}
	}
	if sum.Ended != probe.EndCompleted || sum.Error != "" || !sum.Real.Has(probe.FieldOps|probe.FieldAvg) || sum.AvgMs <= 0 {
		t.Errorf("summary %+v, Real %v: want completed with pgbench's latency average", sum, sum.Real)
	}
	if sum.Real.Has(probe.FieldP95) {
		t.Errorf("summary Real %v: pgbench gives no percentiles", sum.Real)
	}
}

func TestPgbenchExisting(t *testing.T) {
	needPostgres(t)
	ctx := context.Background()
	srv := startServer(t, db.PostgreSQL)
	s := spec(probe.WorkloadPgbench, 2*time.Second)
	s.Scale, s.DB = 1, probe.DBExisting
	s.DBSocket, s.DBPort, s.DBUser, s.DBName = srv.Conn.Socket, srv.Conn.Port, srv.Conn.User, srv.Conn.Database
	w := newWorkload(t, s)
	ss, sum := collect(t, ctx, w, 30*time.Second)
	if len(ss) < 1 || sum.Ended != probe.EndCompleted {
		t.Fatalf("%d samples, summary %+v", len(ss), sum)
	}
	const count = "SELECT count(*) FROM pg_tables WHERE tablename LIKE 'pgbench%'"
	if n, err := srv.Query(ctx, count); err != nil || strings.TrimSpace(n) != "0" {
		t.Errorf("pgbench tables left after the run: %q, %v", n, err)
	}
	leavesTablesItFound(t, srv, s, "CREATE TABLE pgbench_branches (bid int)", count, "1")
}
