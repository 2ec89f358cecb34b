package db

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// sbinDirs are where servers live when they are not on PATH: a non-root PATH
// often lacks /usr/sbin, and RHEL puts mariadbd and mysqld in /usr/libexec.
var sbinDirs = []string{"/usr/sbin", "/usr/libexec", "/usr/local/sbin", "/usr/local/mysql/bin"}

// pgDirGlobs are the versioned bin directories of Debian/Ubuntu
// (postgresql-common) and of the PGDG RPMs.
var pgDirGlobs = []string{"/usr/lib/postgresql/*/bin", "/usr/pgsql-*/bin"}

// packages names what to install for each kind.
var packages = map[string][2]string{ // kind -> {apt, dnf}
	MariaDB:    {"mariadb-server", "mariadb-server"},
	MySQL:      {"mysql-server", "mysql-server"},
	PostgreSQL: {"postgresql", "postgresql-server"},
}

// Require checks that the binaries a managed server of kind needs are
// installed, before anything runs, and returns an error naming each missing
// binary and the package to install. PostgreSQL's initdb and postgres are
// looked for on PATH (RPM installs them in /usr/bin), then in the highest
// version of /usr/lib/postgresql/*/bin (Debian/Ubuntu) and /usr/pgsql-*/bin
// (PGDG). For MySQL it runs mysqld --version, to tell Oracle MySQL from
// MariaDB installed under that name.
func Require(kind string) error {
	if err := checkKind(kind); err != nil {
		return err
	}
	var err error
	if kind == PostgreSQL {
		_, err = findPostgres()
	} else {
		_, err = findMySQL(kind)
	}
	return err
}

// mysqlBins are the programs of a MariaDB or MySQL server.
type mysqlBins struct {
	server    string // mariadbd or mysqld
	installDB string // mariadb-install-db; "" for Oracle MySQL (mysqld --initialize-insecure)
	client    string // mariadb or mysql
}

func findMySQL(kind string) (mysqlBins, error) {
	var b mysqlBins
	var missing []string
	find := func(dst *string, names ...string) {
		for _, n := range names {
			if p, ok := lookPath(n, sbinDirs); ok {
				*dst = p
				return
			}
		}
		missing = append(missing, names[0])
	}
	if kind == MariaDB {
		find(&b.server, "mariadbd")
	} else {
		find(&b.server, "mysqld")
	}
	if b.server != "" && kind == MySQL {
		mariaDB, err := isMariaDB(b.server)
		if err != nil {
			return b, err
		}
		if mariaDB {
			// Debian's default-mysql-server: mysqld is a link to mariadbd.
			kind = MariaDB
		}
	}
	if kind == MariaDB {
		find(&b.installDB, "mariadb-install-db", "mysql_install_db")
		find(&b.client, "mariadb", "mysql")
	} else {
		find(&b.client, "mysql")
	}
	if len(missing) > 0 {
		return b, &missingError{kind, missing, "on PATH or in " + strings.Join(sbinDirs, ", ")}
	}
	return b, nil
}

// isMariaDB tells whether the mysqld at path is MariaDB's.
func isMariaDB(path string) (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := runTool(ctx, &execSpec{path: path, args: []string{"--version"}})
	if err != nil {
		return false, fmt.Errorf("find out which server %s is: %w", path, err)
	}
	return strings.Contains(out, "MariaDB"), nil
}

// pgBins are the programs of a PostgreSQL server, all of one version.
type pgBins struct {
	initdb, postgres, psql string
}

func findPostgres() (pgBins, error) {
	var dirs []string
	if p, err := exec.LookPath("postgres"); err == nil {
		dirs = append(dirs, filepath.Dir(p))
	}
	for _, g := range pgDirGlobs {
		dirs = append(dirs, versionDirs(g)...)
	}
	// initdb must come from postgres's own directory: a cluster made by one
	// major version does not start with another.
	for _, d := range dirs {
		b := pgBins{initdb: filepath.Join(d, "initdb"), postgres: filepath.Join(d, "postgres"), psql: filepath.Join(d, "psql")}
		if !isExecutable(b.postgres) || !isExecutable(b.initdb) {
			continue
		}
		if !isExecutable(b.psql) {
			p, ok := lookPath("psql", nil)
			if !ok {
				return b, &missingError{PostgreSQL, []string{"psql"}, "on PATH or in " + d}
			}
			b.psql = p
		}
		return b, nil
	}
	var missing []string
	for _, n := range []string{"initdb", "postgres", "psql"} {
		found := slices.ContainsFunc(dirs, func(d string) bool { return isExecutable(filepath.Join(d, n)) })
		if _, ok := lookPath(n, nil); !found && !ok {
			missing = append(missing, n)
		}
	}
	if len(missing) == 0 {
		// Each exists somewhere, but never initdb and postgres side by side.
		missing = []string{"initdb", "postgres"}
	}
	return pgBins{}, &missingError{PostgreSQL, missing, "on PATH or in " + strings.Join(pgDirGlobs, ", ")}
}

// missingError says which binaries a kind lacks and what to install.
type missingError struct {
	kind    string
	missing []string
	where   string // where they were looked for
}

func (e *missingError) Error() string {
	them := "it"
	if len(e.missing) > 1 {
		them = "them"
	}
	p := packages[e.kind]
	return fmt.Sprintf("a managed %s server needs %s, not found %s: install %s with \"apt install %s\" (Debian/Ubuntu) or \"dnf install %s\" (RHEL/Fedora)",
		e.kind, strings.Join(e.missing, ", "), e.where, them, p[0], p[1])
}

// lookPath finds name on PATH, then in dirs.
func lookPath(name string, dirs []string) (string, bool) {
	if p, err := exec.LookPath(name); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs, true
		}
	}
	for _, d := range dirs {
		if p := filepath.Join(d, name); isExecutable(p) {
			return p, true
		}
	}
	return "", false
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// versionDirs expands a glob whose * is a PostgreSQL version ("15", "9.6")
// and returns the directories, highest version first.
func versionDirs(glob string) []string {
	dirs, _ := filepath.Glob(glob)
	prefix, _, _ := strings.Cut(glob, "*")
	version := func(d string) []int {
		s, _, _ := strings.Cut(strings.TrimPrefix(d, prefix), "/")
		var v []int
		for f := range strings.SplitSeq(s, ".") {
			n, err := strconv.Atoi(f)
			if err != nil {
				return nil // not a version: sorts last
			}
			v = append(v, n)
		}
		return v
	}
	slices.SortFunc(dirs, func(a, b string) int { return slices.Compare(version(b), version(a)) })
	return dirs
}
