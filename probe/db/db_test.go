package db

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/proc"
	"github.com/perfbisect/perfbisect/internal/testutil"
)

// These tests start real servers; there are no fakes of mariadbd or postgres.

// requireKind skips (fails in CI) when kind's binaries are not installed;
// any other error of Require (a server that does not say its version) fails.
func requireKind(t *testing.T, kind string) {
	t.Helper()
	var missing *missingError
	if err := Require(kind); errors.As(err, &missing) {
		testutil.Missing(t, err.Error())
	} else if err != nil {
		t.Fatal(err)
	}
}

// serverDir is a directory the postgres user can reach: t.TempDir and its
// parent are 0700.
func serverDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func start(t *testing.T, opt Options) *Server {
	t.Helper()
	begin := time.Now()
	s, err := Start(t.Context(), opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s started in %s: %s, settings %q", opt.Kind, time.Since(begin).Round(time.Millisecond), s.Version, s.Settings)
	t.Cleanup(func() {
		if err := s.Stop(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return s
}

// client runs the kind's own command-line client with nothing but Conn, as
// a benchmark tool would connect.
func client(t *testing.T, c Conn, sql string) string {
	t.Helper()
	var cmd *exec.Cmd
	switch c.Kind {
	case PostgreSQL:
		bins, err := findPostgres()
		if err != nil {
			t.Fatal(err)
		}
		cmd = exec.CommandContext(t.Context(), bins.psql, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1",
			"-h", c.Socket, "-p", strconv.Itoa(c.Port), "-U", c.User, "-d", c.Database, "-c", sql)
	default:
		bins, err := findMySQL(c.Kind)
		if err != nil {
			t.Fatal(err)
		}
		cmd = exec.CommandContext(t.Context(), bins.client, "--no-defaults", "--socket="+c.Socket,
			"-u", c.User, "-N", "-B", c.Database, "-e", sql)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, out)
	}
	return strings.TrimSpace(string(out))
}

// show returns the value of a server setting as the server reports it.
func show(t *testing.T, s *Server, name string) string {
	t.Helper()
	sql := "SHOW " + name
	if s.Conn.Kind != PostgreSQL {
		sql = fmt.Sprintf("SELECT @@GLOBAL.%s", name)
	}
	v, err := s.Query(t.Context(), sql)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestServer(t *testing.T) {
	// What each kind reports for its settings: name -> value, when syncs
	// are on and off.
	want := map[string]map[bool]map[string]string{
		MariaDB: {
			false: {"innodb_flush_log_at_trx_commit": "1", "innodb_flush_method": "O_DIRECT", "innodb_buffer_pool_size": "134217728"},
			true:  {"innodb_flush_log_at_trx_commit": "0", "sync_binlog": "0", "innodb_flush_method": "nosync", "innodb_buffer_pool_size": "134217728"},
		},
		PostgreSQL: {
			false: {"fsync": "on", "synchronous_commit": "on", "full_page_writes": "on", "shared_buffers": "128MB"},
			true:  {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off", "shared_buffers": "128MB"},
		},
	}
	for _, kind := range []string{MariaDB, PostgreSQL} {
		for _, noSync := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/nosync=%t", kind, noSync), func(t *testing.T) {
				t.Parallel()
				requireKind(t, kind)
				dir := serverDir(t)
				var log lockedBuffer
				s := start(t, Options{Kind: kind, Dir: dir, NoSync: noSync, Log: &log})

				if s.Version == "" {
					t.Error("Version is empty")
				}
				if filepath.Dir(s.DataDir) != dir || !strings.HasPrefix(filepath.Base(s.DataDir), "perfbisect-"+kind+"-") {
					t.Errorf("DataDir = %s, want %s/perfbisect-%s-*", s.DataDir, dir, kind)
				}
				if got := client(t, s.Conn, "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10)); INSERT INTO t VALUES (1, 'written'); SELECT v FROM t"); got != "written" {
					t.Errorf("select after insert returned %q, want %q", got, "written")
				}
				for name, v := range want[kind][noSync] {
					if got := show(t, s, name); !strings.EqualFold(got, v) {
						t.Errorf("%s = %s, want %s", name, got, v)
					}
				}
				if noSync {
					for _, so := range SyncOff(kind) {
						if !strings.Contains(strings.Join(s.Settings, " "), so) {
							t.Errorf("Settings %q lack %s", s.Settings, so)
						}
					}
				}
				if log.Len() == 0 {
					t.Error("Options.Log received nothing from the server")
				}

				pid := s.proc.Pid()
				begin := time.Now()
				if err := s.Stop(t.Context()); err != nil {
					t.Fatal(err)
				}
				t.Logf("stopped in %s", time.Since(begin).Round(time.Millisecond))
				if _, err := os.Stat(s.DataDir); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("data dir %s is still there after Stop (stat: %v)", s.DataDir, err)
				}
				if proc.Alive(pid) {
					t.Errorf("%s (pid %d) still runs after Stop", kind, pid)
				}
				if left := groupMembers(t, pid); len(left) > 0 {
					t.Errorf("process group %d still has members after Stop: %v", pid, left)
				}
				if err := s.Stop(t.Context()); err != nil {
					t.Errorf("second Stop: %v", err)
				}
			})
		}
	}
}

// lockedBuffer lets a test read what the server's log goroutine writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Len()
}

// TestMySQLKind runs the mysql kind with whatever mysqld is installed: on
// Debian it is MariaDB's, and the server must say so.
func TestMySQLKind(t *testing.T) {
	requireKind(t, MySQL)
	s := start(t, Options{Kind: MySQL, Dir: serverDir(t), NoSync: true})
	if s.Conn.Kind != MySQL {
		t.Errorf("Conn.Kind = %q, want %q", s.Conn.Kind, MySQL)
	}
	if got := client(t, s.Conn, "SELECT DATABASE()"); got != "sbtest" {
		t.Errorf("DATABASE() = %q, want sbtest", got)
	}
	if got := show(t, s, "innodb_flush_log_at_trx_commit"); got != "0" {
		t.Errorf("innodb_flush_log_at_trx_commit = %s with NoSync, want 0", got)
	}
	// A plan names SyncOffHere: it must be what the server really got (on
	// Debian MariaDB's nosync, not MySQL 8's doublewrite).
	for _, set := range SyncOffHere(MySQL) {
		if !slices.Contains(s.Settings, set) {
			t.Errorf("SyncOffHere(mysql) names %s, but the server ran with %q", set, s.Settings)
		}
	}
}

// TestServersAtOnce starts several MariaDB servers at the same time, as
// parallel tests and two perfbisects on one host do. Each must keep its
// temporary files in its own dir: a MariaDB starting up deletes every #sql*
// file in its tmpdir, so with the shared /tmp one server's bootstrap lost its
// temporary tables to another's start.
func TestServersAtOnce(t *testing.T) {
	requireKind(t, MariaDB)
	dir := serverDir(t)
	const n = 4
	servers := make([]*Server, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { servers[i], errs[i] = Start(t.Context(), Options{Kind: MariaDB, Dir: dir}) })
	}
	wg.Wait()
	for i, s := range servers {
		if errs[i] != nil {
			t.Errorf("server %d: %v", i, errs[i])
			continue
		}
		t.Cleanup(func() {
			if err := s.Stop(context.Background()); err != nil {
				t.Error(err)
			}
		})
		if got := show(t, s, "tmpdir"); !strings.HasPrefix(got, s.DataDir+string(filepath.Separator)) {
			t.Errorf("server %d: tmpdir = %s, want a dir inside its own %s", i, got, s.DataDir)
		}
		if got := client(t, s.Conn, "SHOW DATABASES LIKE '%tmp%'"); got != "" {
			t.Errorf("server %d: its tmpdir shows up as a database: %q", i, got)
		}
	}
}
