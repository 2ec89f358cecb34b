package db

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// mysqlDriver runs MariaDB, or Oracle MySQL 8. Both run as root when
// perfbisect does (--user=root): nothing else can enter the data dir.
type mysqlDriver struct {
	kind    string // MariaDB or MySQL, as asked
	mariaDB bool   // the server really is MariaDB, whatever kind says
	bins    mysqlBins
	root    string // the server's own dir: data/, tmp/, the socket
}

// dataDir and tmpDir are apart under root: a tmpdir inside the data dir would
// show up as a database, and the default tmpdir (/tmp) is shared — a MariaDB
// starting up deletes every #sql* file in its tmpdir, which are the temporary
// tables of any other server using the same one (two bootstraps at once then
// fail with "Unknown table 'mysql.tmp_user_nopasswd…'").
func (d *mysqlDriver) dataDir() string { return filepath.Join(d.root, "data") }
func (d *mysqlDriver) tmpDir() string  { return filepath.Join(d.root, "tmp") }

// createMySQL makes the data dir of a MariaDB or MySQL server and binds s
// to it.
func (s *Server) createMySQL(kind, parent string) error {
	bins, err := findMySQL(kind)
	if err != nil {
		return err
	}
	dir, err := makeDataDir(parent, kind, "mysqld.sock")
	if err != nil {
		return err
	}
	d := &mysqlDriver{kind: kind, mariaDB: bins.installDB != "", bins: bins, root: dir}
	s.drv, s.DataDir, s.Conn = d, dir, d.conn()
	return nil
}

func (d *mysqlDriver) conn() Conn {
	return Conn{Kind: d.kind, Socket: d.socketFile(), User: "root", Database: "sbtest"}
}

func (d *mysqlDriver) socketFile() string { return filepath.Join(d.root, "mysqld.sock") }

// userArgs are needed as root: both servers refuse to run as root unless
// told to.
func userArgs() []string {
	if os.Geteuid() == 0 {
		return []string{"--user=root"}
	}
	return nil
}

func (d *mysqlDriver) initialize(ctx context.Context) error {
	// --no-defaults must come first: no my.cnf of the system's server applies.
	var spec *execSpec
	if d.mariaDB {
		// root gets an empty password: the default ("socket") would let
		// only the OS user root in, and a client running as another user
		// (a non-root perfbisect) could not log in.
		spec = &execSpec{path: d.bins.installDB, args: []string{"--no-defaults", "--datadir=" + d.dataDir(),
			"--auth-root-authentication-method=normal", "--skip-test-db"}}
	} else {
		spec = &execSpec{path: d.bins.server, args: []string{"--no-defaults", "--initialize-insecure",
			"--datadir=" + d.dataDir(), "--secure-file-priv=NULL"}}
	}
	spec.args = append(spec.args, "--tmpdir="+d.tmpDir())
	spec.args = append(spec.args, userArgs()...)
	if err := os.Mkdir(d.tmpDir(), 0o700); err != nil {
		return fmt.Errorf("initialize the %s data dir %s: %w", d.kind, d.root, err)
	}
	if _, err := runTool(ctx, spec); err != nil {
		return fmt.Errorf("initialize the %s data dir %s: %w", d.kind, d.root, err)
	}
	return nil
}

// server logs to stderr (no --log-error), which Start reads.
func (d *mysqlDriver) server(settings []string) *execSpec {
	args := []string{
		"--no-defaults",
		"--datadir=" + d.dataDir(),
		"--socket=" + d.socketFile(),
		"--pid-file=" + filepath.Join(d.root, "mysqld.pid"),
		"--tmpdir=" + d.tmpDir(),
		"--skip-networking",
	}
	if !d.mariaDB {
		// MySQL 8 also listens for the X protocol, on a port and on
		// /tmp/mysqlx.sock, and needs /var/lib/mysql-files unless told not to.
		args = append(args, "--mysqlx=OFF", "--secure-file-priv=NULL")
	}
	args = append(args, userArgs()...)
	for _, s := range settings {
		args = append(args, "--"+s)
	}
	return &execSpec{path: d.bins.server, args: args, dir: d.root}
}

func (d *mysqlDriver) settings(noSync bool) []string {
	// The default, said explicitly so that a report can say it.
	s := []string{"innodb_buffer_pool_size=128M"}
	if noSync {
		if d.mariaDB {
			s = append(s, SyncOff(MariaDB)...)
		} else {
			s = append(s, SyncOff(MySQL)...)
		}
	}
	return s
}

func (d *mysqlDriver) query(ctx context.Context, database, sql string) (string, error) {
	args := []string{"--no-defaults", "--socket=" + d.socketFile(), "--user=root",
		"--batch", "--skip-column-names", "--connect-timeout=5"}
	if database != "" {
		args = append(args, "--database="+database)
	}
	args = append(args, "--execute="+sql)
	return runTool(ctx, &execSpec{path: d.bins.client, args: args})
}

func (d *mysqlDriver) versionSQL() string { return "SELECT VERSION()" }

func (d *mysqlDriver) shutdownSignal() syscall.Signal { return syscall.SIGTERM }
