package tool

import (
	"strings"
	"testing"

	"github.com/perfbisect/perfbisect/probe"
)

func TestRequire(t *testing.T) {
	t.Setenv("PATH", "")
	for name, u := range map[string]struct {
		spec probe.Spec
		want []string
	}{
		"fio":      {probe.DefaultFor(probe.WorkloadFio), []string{"fio is not installed", "apt install fio", "dnf install fio"}},
		"sysbench": {probe.DefaultFor(probe.WorkloadSysbench), []string{"sysbench is not installed", "apt install sysbench", "dnf install sysbench"}},
	} {
		t.Run(name, func(t *testing.T) {
			err := Require(u.spec)
			if err == nil {
				t.Fatal("no error with an empty PATH")
			}
			for _, w := range u.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
	if err := Require(probe.DefaultSpec()); err != nil {
		t.Errorf("the fsync probe needs nothing: %v", err)
	}
	if err := Require(probe.DefaultFor(probe.WorkloadCommand)); err != nil {
		t.Errorf("a command needs /bin/sh, found by its path: %v", err)
	}
}

func TestFindPgbenchMissing(t *testing.T) {
	t.Setenv("PATH", "")
	saved := pgbenchDirs
	pgbenchDirs = []string{t.TempDir()}
	defer func() { pgbenchDirs = saved }()
	_, err := findPgbench()
	for _, w := range []string{"pgbench is not installed", "apt install postgresql-client", "dnf install postgresql"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v does not say %q", err, w)
		}
	}
}

func TestVersionOf(t *testing.T) {
	for path, want := range map[string]int{
		"/usr/lib/postgresql/15/bin/pgbench": 15,
		"/usr/lib/postgresql/9/bin/pgbench":  9,
		"/usr/pgsql-16/bin/pgbench":          16,
		"/usr/bin/pgbench":                   0,
	} {
		if got := versionOf(path); got != want {
			t.Errorf("versionOf(%q) = %d, want %d", path, got, want)
		}
	}
}
