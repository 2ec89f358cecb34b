// Package db owns managed database servers: throwaway MariaDB, MySQL and
// PostgreSQL instances that perfbisect creates for a benchmark workload
// (sysbench, pgbench), reaches only through a unix socket in their own data
// directory, and removes afterwards. It never touches a server it did not
// start, nor the system's own data directories or configuration files.
package db

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/perfbisect/perfbisect/internal/proc"
)

// The kinds of managed server.
const (
	MariaDB    = "mariadb"
	MySQL      = "mysql"
	PostgreSQL = "postgresql"
)

// Kinds lists the server kinds, for error messages.
func Kinds() []string { return []string{MariaDB, MySQL, PostgreSQL} }

// Options says which throwaway server to start and where.
type Options struct {
	Kind   string // MariaDB, MySQL or PostgreSQL
	Dir    string // an existing directory; the server's data dir is created inside it and removed by Stop
	NoSync bool   // start with the server's syncs off (see SyncOff)
	// Log receives the server's own log lines (may be nil); on a failed start the error quotes its last lines anyway.
	Log io.Writer
}

// Conn is how a client reaches a server.
type Conn struct {
	Kind     string `json:"kind"`
	Host     string `json:"host,omitempty"` // TCP host; empty when Socket is used
	Port     int    `json:"port,omitempty"`
	Socket   string `json:"socket,omitempty"` // MariaDB/MySQL: the socket file; PostgreSQL: the socket directory
	User     string `json:"user"`
	Password string `json:"-"`        // never logged
	Database string `json:"database"` // exists when Start returns ("sbtest" for MariaDB/MySQL, "pgbench" for PostgreSQL)
}

// Server is a running managed server. Settings lists what bears on its
// performance (memory and durability), the defaults it was given explicitly
// included. DataDir holds everything it writes (data, temporary files, its
// socket, named in Conn); Stop removes it.
type Server struct {
	Conn     Conn
	DataDir  string
	Version  string   // as the server reports it, e.g. "10.11.19-MariaDB-0+deb12u1"
	Settings []string // the non-default settings it runs with, e.g. "innodb_flush_log_at_trx_commit=0"

	drv  driver
	proc proc.Process

	mu      sync.Mutex // serializes Stop
	stopErr error      // a failed shutdown, returned again by later calls
}

// driver is what differs between server kinds. A driver is bound to the
// binaries Require found and to one data directory.
type driver interface {
	// initialize creates the system tables in the (empty) data directory.
	initialize(ctx context.Context) error
	// server returns the command that runs the server in the foreground
	// with the given extra settings ("name=value").
	server(settings []string) *execSpec
	// query runs sql in database with the kind's command-line client and
	// returns its output, one row a line, columns separated by tabs.
	query(ctx context.Context, database, sql string) (string, error)
	// conn says how clients reach the server.
	conn() Conn
	// settings are the non-default settings a server runs with.
	settings(noSync bool) []string
	// socketFile is the socket the server creates when it listens.
	socketFile() string
	// versionSQL returns the server's version as one row.
	versionSQL() string
	// shutdownSignal asks the server for a clean and prompt shutdown.
	shutdownSignal() syscall.Signal
}

const (
	// initTimeout bounds the initialization of a data dir, which takes a
	// second or two but writes and syncs a few hundred files: an emulated
	// gp2 volume allows 100 IOPS.
	initTimeout = 5 * time.Minute
	// startTimeout bounds how long a server may take to answer.
	startTimeout = 60 * time.Second
	// stopTimeout bounds a clean shutdown before the server is killed.
	stopTimeout = 30 * time.Second
	// pollInterval is how often Start asks a starting server whether it is ready.
	pollInterval = 100 * time.Millisecond
	// maxSocketPath is the longest unix socket path Linux accepts
	// (sizeof(sun_path) minus its terminating NUL).
	maxSocketPath = 107
)

var errStartTimeout = errors.New("the server did not answer in time")

// Start creates a data dir in opt.Dir, initializes it (mariadb-install-db /
// mysqld --initialize-insecure / initdb --auth=trust), starts the server
// listening only on a unix socket inside its data dir (MariaDB/MySQL:
// --skip-networking; PostgreSQL: an empty listen_addresses and
// unix_socket_directories=<datadir>), waits until it answers (bounded by ctx
// and by one minute, with an error quoting the server log's last lines),
// creates the benchmark database, and returns it. On any failure it has
// already stopped what it started and removed the data dir.
//
// The data dir is <opt.Dir>/perfbisect-<kind>-<random>. When perfbisect runs
// as root, PostgreSQL runs as the postgres OS user, so every directory from /
// down to opt.Dir must be searchable (x) by that user; Start says which one is
// not. The socket path must fit in 107 bytes, so opt.Dir should be short.
//
// The server process is killed if perfbisect dies (a parent-death signal) and
// runs in its own process group, so a Ctrl-C in the terminal reaches
// perfbisect only, which then calls Stop.
func Start(ctx context.Context, opt Options) (*Server, error) {
	if err := checkKind(opt.Kind); err != nil {
		return nil, err
	}
	parent, err := checkDir(opt.Dir)
	if err != nil {
		return nil, fmt.Errorf("start a managed %s server: %w", opt.Kind, err)
	}
	s := &Server{}
	switch opt.Kind {
	case PostgreSQL:
		err = s.createPostgres(parent)
	default:
		err = s.createMySQL(opt.Kind, parent)
	}
	if missing := (*missingError)(nil); errors.As(err, &missing) {
		return nil, err // it says it all
	}
	if err != nil {
		return nil, fmt.Errorf("start a managed %s server: %w", opt.Kind, err)
	}
	if err := s.launch(ctx, opt); err != nil {
		return nil, err
	}
	return s, nil
}

// launch initializes the data dir and starts the server; when it fails, it
// kills what it started and removes the data dir.
func (s *Server) launch(ctx context.Context, opt Options) error {
	err := s.start(ctx, opt)
	if err == nil {
		return nil
	}
	// The caller's ctx may be done; cleaning up must not depend on it.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopTimeout)
	defer cancel()
	if stopErr := s.stop(cctx, false); stopErr != nil {
		err = errors.Join(err, stopErr)
	}
	return err
}

func (s *Server) start(ctx context.Context, opt Options) error {
	ictx, cancel := context.WithTimeoutCause(ctx, initTimeout,
		fmt.Errorf("it did not finish within %s", initTimeout))
	defer cancel()
	if err := s.drv.initialize(ictx); err != nil {
		return err
	}
	s.Settings = s.drv.settings(opt.NoSync)
	spec := s.drv.server(s.Settings)
	p, err := startServer(spec, s.drv.shutdownSignal(), opt.Log)
	if err != nil {
		return fmt.Errorf("%w (data dir %s)", err, s.DataDir)
	}
	s.proc = p
	if err := s.waitReady(ctx, spec.name()); err != nil {
		return err
	}
	db := s.Conn.Database
	if _, err := s.drv.query(ctx, "", "CREATE DATABASE "+db); err != nil {
		return fmt.Errorf("create database %s on %s in %s: %w", db, spec.name(), s.DataDir, err)
	}
	return nil
}

// waitReady polls the server until it answers a query, which also gives its
// version.
func (s *Server) waitReady(ctx context.Context, name string) error {
	ctx, cancel := context.WithTimeoutCause(ctx, startTimeout, errStartTimeout)
	defer cancel()
	socket := s.drv.socketFile()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	var last error
	for {
		// Clients are only worth running once the socket exists.
		if _, err := os.Stat(socket); err != nil {
			last = fmt.Errorf("no socket %s yet", socket)
		} else {
			// A short bound per try keeps a hung client from eating the budget.
			qctx, qcancel := context.WithTimeout(ctx, 5*time.Second)
			v, err := s.drv.query(qctx, "", s.drv.versionSQL())
			qcancel()
			if err == nil && v != "" {
				s.Version = v
				return nil
			}
			last = err
		}
		select {
		case <-s.proc.Done():
			return fmt.Errorf("start %s in %s: it exited before answering: %w", name, s.DataDir, exited(s.proc))
		case <-ctx.Done():
			if context.Cause(ctx) == errStartTimeout {
				return fmt.Errorf("start %s in %s: it did not answer within %s (last try: %v)%s",
					name, s.DataDir, startTimeout, last, logSaid(s.proc))
			}
			return fmt.Errorf("start %s in %s: %w", name, s.DataDir, ctx.Err())
		case <-tick.C:
		}
	}
}

// Stop shuts the server down cleanly (SIGTERM for MariaDB/MySQL, SIGINT —
// PostgreSQL's fast shutdown — for PostgreSQL), kills its whole process group
// if it has not exited after 30 s or when ctx is done, waits for it, and
// removes its data dir. It is idempotent, safe after a crash of the server,
// and safe on a nil Server.
func (s *Server) Stop(ctx context.Context) error {
	if s == nil {
		return nil
	}
	return s.stop(ctx, true)
}

// stop ends the server, with a clean shutdown or SIGKILL at once, and
// SIGKILL to what is left of its group: all of it when the shutdown timed
// out or ctx is done, or the children (PostgreSQL backends) of a server
// that crashed. It removes the data dir: a server that had already exited
// is no error.
func (s *Server) stop(ctx context.Context, clean bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc != nil {
		if !clean {
			s.proc.Kill() // and Stop only waits, for 10 s at most
		}
		if err := s.proc.Stop(ctx); err != nil && s.stopErr == nil {
			s.stopErr = fmt.Errorf("stop the %s server in %s: %w", s.Conn.Kind, s.DataDir, err)
		}
	}
	if s.DataDir == "" {
		return s.stopErr
	}
	if err := os.RemoveAll(s.DataDir); err != nil {
		return errors.Join(s.stopErr, fmt.Errorf("remove the %s data dir: %w (remove it by hand)", s.Conn.Kind, err))
	}
	return s.stopErr
}

// Query runs sql in the benchmark database with the kind's command-line
// client (mariadb, mysql or psql) and returns its output: one row a line,
// columns separated by tabs, no header.
func (s *Server) Query(ctx context.Context, sql string) (string, error) {
	return s.drv.query(ctx, s.Conn.Database, sql)
}

// SyncOff lists the settings a server of kind is started with when NoSync is
// set, as "name=value":
//   - MariaDB: innodb_flush_log_at_trx_commit=0, sync_binlog=0,
//     innodb_flush_method=nosync (MariaDB 10.x; 11.0 deprecates
//     innodb_flush_method but still accepts it).
//   - MySQL 8 has no nosync flush method, so it gets
//     innodb_flush_log_at_trx_commit=0, sync_binlog=0, innodb_doublewrite=OFF
//     and still fsyncs its data files at checkpoints.
//   - PostgreSQL: fsync=off, synchronous_commit=off, full_page_writes=off.
//
// A MySQL kind whose mysqld is really MariaDB (Debian's mysqld is a link to
// mariadbd) gets the MariaDB settings; Server.Settings says what was used.
// SyncOff returns nil for an unknown kind.
func SyncOff(kind string) []string {
	switch kind {
	case MariaDB:
		return []string{"innodb_flush_log_at_trx_commit=0", "sync_binlog=0", "innodb_flush_method=nosync"}
	case MySQL:
		return []string{"innodb_flush_log_at_trx_commit=0", "sync_binlog=0", "innodb_doublewrite=OFF"}
	case PostgreSQL:
		return []string{"fsync=off", "synchronous_commit=off", "full_page_writes=off"}
	}
	return nil
}

// SyncOffHere is SyncOff for the server of kind that Start would run on
// this host: a mysql kind whose mysqld is MariaDB's gets MariaDB's settings,
// so a plan says what will really be done.
func SyncOffHere(kind string) []string {
	if kind == MySQL {
		if b, err := findMySQL(kind); err == nil && b.installDB != "" {
			return SyncOff(MariaDB)
		}
	}
	return SyncOff(kind)
}

// checkKind says what is wrong with an unknown kind.
func checkKind(kind string) error {
	if slices.Contains(Kinds(), kind) {
		return nil
	}
	k := Kinds()
	return fmt.Errorf("unknown database server kind %q (use %s or %s)", kind, strings.Join(k[:len(k)-1], ", "), k[len(k)-1])
}

// checkDir checks that dir exists and is a directory, and returns it absolute:
// servers and clients run with other working directories.
func checkDir(dir string) (string, error) {
	if dir == "" {
		return "", errors.New("no directory given for its data dir (pass an existing directory)")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("directory %s: %w", dir, err)
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", fmt.Errorf("directory %s does not exist (create it, or pass an existing directory)", abs)
	case err != nil:
		return "", err
	case !fi.IsDir():
		return "", fmt.Errorf("%s is not a directory (pass an existing directory)", abs)
	}
	return abs, nil
}

// makeDataDir creates <parent>/perfbisect-<kind>-<random> and checks that a
// socket file named socket inside it fits in a unix socket address.
func makeDataDir(parent, kind, socket string) (string, error) {
	dir, err := os.MkdirTemp(parent, "perfbisect-"+kind+"-")
	if err != nil {
		return "", fmt.Errorf("create its data dir: %w", err)
	}
	if p := filepath.Join(dir, socket); len(p) > maxSocketPath {
		os.Remove(dir)
		return "", fmt.Errorf("its socket %s would be %d bytes long, more than the %d a unix socket allows (pass a directory with a shorter path)",
			p, len(p), maxSocketPath)
	}
	return dir, nil
}
