package db

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
)

// pgPort is the port PostgreSQL names its socket after; it listens on no
// TCP port, so any number will do.
const pgPort = 5432

// pgDriver runs PostgreSQL in the foreground as our child (not through
// pg_ctl, which would detach it), as the postgres OS user when perfbisect
// is root: postgres refuses to run as root.
type pgDriver struct {
	bins    pgBins
	dataDir string
	as      *osUser // nil: perfbisect's own user
}

// osUser is an OS account to run a server as.
type osUser struct {
	name, home string
	uid, gid   uint32
	groups     []uint32
}

// createPostgres makes the data dir of a PostgreSQL server, owned by the
// user that will run it, and binds s to it.
func (s *Server) createPostgres(parent string) error {
	bins, err := findPostgres()
	if err != nil {
		return err
	}
	var as *osUser
	if os.Geteuid() == 0 {
		if as, err = lookupUser("postgres"); err != nil {
			return err
		}
		if err := checkSearchable(parent, as); err != nil {
			return err
		}
	}
	dir, err := makeDataDir(parent, PostgreSQL, fmt.Sprintf(".s.PGSQL.%d", pgPort))
	if err != nil {
		return err
	}
	if as != nil {
		if err := os.Chown(dir, int(as.uid), int(as.gid)); err != nil {
			os.Remove(dir)
			return fmt.Errorf("give its data dir to the %s user: %w", as.name, err)
		}
	}
	d := &pgDriver{bins: bins, dataDir: dir, as: as}
	s.drv, s.DataDir, s.Conn = d, dir, d.conn()
	return nil
}

func (d *pgDriver) conn() Conn {
	return Conn{Kind: PostgreSQL, Socket: d.dataDir, Port: pgPort, User: "postgres", Database: "pgbench"}
}

func (d *pgDriver) socketFile() string {
	return filepath.Join(d.dataDir, fmt.Sprintf(".s.PGSQL.%d", pgPort))
}

func (d *pgDriver) initialize(ctx context.Context) error {
	// The C locale: the host's locale may not be installed, and benchmarks
	// should not depend on it. --no-sync: a throwaway cluster need not be
	// durable before it starts.
	spec := &execSpec{path: d.bins.initdb, dir: d.dataDir, as: d.as, args: []string{
		"-D", d.dataDir, "--auth=trust", "--username=postgres", "--no-sync",
		"--encoding=UTF8", "--locale=C",
	}}
	if _, err := runTool(ctx, spec); err != nil {
		return fmt.Errorf("initialize the postgresql data dir %s: %w", d.dataDir, err)
	}
	return nil
}

// server logs to stderr (logging_collector is off by default), which Start
// reads.
func (d *pgDriver) server(settings []string) *execSpec {
	args := []string{
		"-D", d.dataDir,
		"-c", "listen_addresses=",
		"-c", "unix_socket_directories=" + d.dataDir,
		"-c", "port=" + strconv.Itoa(pgPort),
	}
	for _, s := range settings {
		args = append(args, "-c", s)
	}
	return &execSpec{path: d.bins.postgres, args: args, dir: d.dataDir, as: d.as}
}

func (d *pgDriver) settings(noSync bool) []string {
	// initdb's usual choice, said explicitly: initdb picks less when it
	// finds little shared memory.
	s := []string{"shared_buffers=128MB"}
	if noSync {
		s = append(s, SyncOff(PostgreSQL)...)
	}
	return s
}

// query runs psql as perfbisect's user: the socket is in the data dir, which
// only its owner (or root) may enter.
func (d *pgDriver) query(ctx context.Context, database, sql string) (string, error) {
	if database == "" {
		database = "postgres"
	}
	return runTool(ctx, &execSpec{path: d.bins.psql, args: []string{
		"--no-psqlrc", "--quiet", "--no-align", "--tuples-only", "--field-separator=\t",
		"--set=ON_ERROR_STOP=1",
		"--host=" + d.dataDir, "--port=" + strconv.Itoa(pgPort), "--username=postgres", "--dbname=" + database,
		"--command=" + sql,
	}})
}

func (d *pgDriver) versionSQL() string { return "SHOW server_version" }

// shutdownSignal is SIGINT, PostgreSQL's fast shutdown: SIGTERM (smart)
// would wait for clients to leave.
func (d *pgDriver) shutdownSignal() syscall.Signal { return syscall.SIGINT }

func lookupUser(name string) (*osUser, error) {
	u, err := user.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL refuses to run as root, and there is no %s user to run it as (%v): install PostgreSQL from your distribution's package, which creates it, or run perfbisect as another user", name, err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("user %s: %w", name, err)
	}
	o := &osUser{name: name, home: u.HomeDir, uid: uint32(uid), gid: uint32(gid)}
	gids, err := u.GroupIds()
	if err != nil {
		return nil, fmt.Errorf("groups of user %s: %w", name, err)
	}
	for _, g := range gids {
		if n, err := strconv.ParseUint(g, 10, 32); err == nil {
			o.groups = append(o.groups, uint32(n))
		}
	}
	return o, nil
}

// checkSearchable checks that as may enter dir and every directory above it
// (its x permission bits; ACLs are not read), and names the first one that
// stops it: a t.TempDir or a directory made by mktemp -d is 0700.
func checkSearchable(dir string, as *osUser) error {
	for p := dir; ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return nil // not a Unix file system: let initdb say
		}
		if !searchable(st, as) {
			return fmt.Errorf("PostgreSQL runs as user %s (uid %d), which cannot enter %s (%s, owner %s, group %s): "+
				"run \"chmod o+x %s\", or pass a directory that user can reach",
				as.name, as.uid, p, fi.Mode(), userName(st.Uid), groupName(st.Gid), p)
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

func searchable(st *syscall.Stat_t, as *osUser) bool {
	mode := st.Mode
	switch {
	case as.uid == 0:
		return true
	case st.Uid == as.uid:
		return mode&0o100 != 0
	case st.Gid == as.gid || slices.Contains(as.groups, st.Gid):
		return mode&0o010 != 0
	}
	return mode&0o001 != 0
}

func userName(uid uint32) string {
	id := strconv.FormatUint(uint64(uid), 10)
	if u, err := user.LookupId(id); err == nil {
		return u.Username
	}
	return id
}

func groupName(gid uint32) string {
	id := strconv.FormatUint(uint64(gid), 10)
	if g, err := user.LookupGroupId(id); err == nil {
		return g.Name
	}
	return id
}
