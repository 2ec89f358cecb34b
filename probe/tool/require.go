package tool

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/perfbisect/perfbisect/internal/pathx"
	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/db"
)

// packages says how to install each tool.
var packages = map[string]string{
	"sysbench": "Debian/Ubuntu: apt install sysbench; RHEL/Fedora: dnf install sysbench (from EPEL on RHEL)",
	"pgbench":  "Debian/Ubuntu: apt install postgresql-client (pgbench comes with the server package postgresql-NN on Debian 12 and older: apt install postgresql); RHEL/Fedora: dnf install postgresql",
	"fio":      "Debian/Ubuntu: apt install fio; RHEL/Fedora: dnf install fio",
	"sh":       "every Linux has /bin/sh; on this machine it is missing or not executable",
}

// missing is the error for a tool that is not installed.
func missing(name string, err error) error {
	return fmt.Errorf("%s is not installed (%v): %s", name, unwrapExec(err), packages[name])
}

func unwrapExec(err error) error {
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err
	}
	return pathx.Bare(err)
}

// Require checks, before anything runs, that every program spec needs is
// installed, and returns an error naming each missing one and the package
// to install. A managed database's server binaries are checked by
// db.Require. The fsync workload needs nothing.
func Require(spec probe.Spec) error {
	var errs []error
	switch spec.Workload {
	case probe.WorkloadSysbench:
		if _, err := exec.LookPath("sysbench"); err != nil {
			errs = append(errs, missing("sysbench", err))
		}
	case probe.WorkloadPgbench:
		if _, err := findPgbench(); err != nil {
			errs = append(errs, err)
		}
	case probe.WorkloadFio:
		if _, err := exec.LookPath("fio"); err != nil {
			errs = append(errs, missing("fio", err))
		}
	case probe.WorkloadCommand:
		if _, err := exec.LookPath(shell); err != nil {
			errs = append(errs, missing("sh", err))
		}
	}
	if spec.Managed() {
		errs = append(errs, db.Require(spec.Server))
	}
	return errors.Join(errs...)
}

const shell = "/bin/sh"

// pgbenchDirs are where PostgreSQL packages put pgbench off PATH: Debian
// and Ubuntu, and the PGDG RPMs.
var pgbenchDirs = []string{"/usr/lib/postgresql/*/bin", "/usr/pgsql-*/bin"}

// findPgbench finds pgbench on PATH, or in the newest version's directory
// of pgbenchDirs. Debian's /usr/bin/pgbench is pg_wrapper, a Perl script
// that runs the real one of some version (and fails when only the client
// package is installed): the real binary is taken when there is one.
func findPgbench() (string, error) {
	onPath, pathErr := exec.LookPath("pgbench")
	if pathErr == nil && !isPgWrapper(onPath) {
		return onPath, nil
	}
	var found []string
	for _, pat := range pgbenchDirs {
		m, _ := filepath.Glob(filepath.Join(pat, "pgbench"))
		found = append(found, m...)
	}
	slices.SortFunc(found, func(a, b string) int { return versionOf(b) - versionOf(a) })
	for _, f := range found {
		if st, err := os.Stat(f); err == nil && st.Mode()&0o111 != 0 {
			return f, nil
		}
	}
	if pathErr == nil {
		return onPath, nil
	}
	return "", fmt.Errorf("pgbench is not installed (not on PATH, nor in %s): %s", strings.Join(pgbenchDirs, " or "), packages["pgbench"])
}

func isPgWrapper(path string) bool {
	real, err := filepath.EvalSymlinks(path)
	return err == nil && filepath.Base(real) == "pg_wrapper"
}

// versionOf is the major version in a path like /usr/lib/postgresql/15/bin
// or /usr/pgsql-16/bin; 0 when there is none.
func versionOf(path string) int {
	for _, part := range strings.Split(path, "/") {
		part = strings.TrimPrefix(part, "pgsql-")
		if v, err := strconv.Atoi(part); err == nil {
			return v
		}
	}
	return 0
}
