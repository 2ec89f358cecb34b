package db

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRequire(t *testing.T) {
	err := Require("nosuch")
	if err == nil {
		t.Fatal(`Require("nosuch") succeeded`)
	}
	for _, k := range Kinds() {
		if !strings.Contains(err.Error(), k) {
			t.Errorf("error does not name kind %s: %v", k, err)
		}
	}
	for _, k := range Kinds() {
		if SyncOff(k) == nil {
			t.Errorf("SyncOff(%q) is empty", k)
		}
	}
	if SyncOff("nosuch") != nil {
		t.Errorf("SyncOff(nosuch) = %q, want nil", SyncOff("nosuch"))
	}
}

// TestRequireMissing runs Require with an empty PATH and no fallback
// directories: the error names each binary and its package.
func TestRequireMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	saveSbin, savePG := sbinDirs, pgDirGlobs
	sbinDirs, pgDirGlobs = nil, nil
	t.Cleanup(func() { sbinDirs, pgDirGlobs = saveSbin, savePG })

	cases := map[string][]string{
		MariaDB:    {"mariadbd", "mariadb-install-db", "apt install mariadb-server", "dnf install mariadb-server"},
		MySQL:      {"mysqld", "mysql", "apt install mysql-server", "dnf install mysql-server"},
		PostgreSQL: {"initdb", "postgres", "psql", "apt install postgresql", "dnf install postgresql-server"},
	}
	for kind, want := range cases {
		err := Require(kind)
		if err == nil {
			t.Errorf("Require(%s) succeeded with an empty PATH", kind)
			continue
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("Require(%s): error lacks %q: %v", kind, w, err)
			}
		}
	}
}

func TestVersionDirs(t *testing.T) {
	root := t.TempDir()
	for _, v := range []string{"9.6", "15", "16", "10", "x"} {
		if err := os.MkdirAll(filepath.Join(root, v, "bin"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	got := versionDirs(filepath.Join(root, "*", "bin"))
	var names []string
	for _, d := range got {
		names = append(names, filepath.Base(filepath.Dir(d)))
	}
	if want := "16 15 10 9.6 x"; strings.Join(names, " ") != want {
		t.Errorf("versionDirs order = %s, want %s", strings.Join(names, " "), want)
	}
}
