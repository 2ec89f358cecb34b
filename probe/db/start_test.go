package db

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfbisect/perfbisect/internal/proc"
)

// TestFailedStart makes each server refuse to start: the error quotes its
// log, and nothing is left behind.
func TestFailedStart(t *testing.T) {
	for _, kind := range []string{MariaDB, PostgreSQL} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			requireKind(t, kind)
			dir := serverDir(t)
			parent, err := checkDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			s := &Server{}
			if kind == PostgreSQL {
				err = s.createPostgres(parent)
			} else {
				err = s.createMySQL(kind, parent)
			}
			if err != nil {
				t.Fatal(err)
			}
			s.drv = badSetting{s.drv}
			err = s.launch(t.Context(), Options{Kind: kind, Dir: dir})
			if err == nil {
				s.Stop(context.Background())
				t.Fatal("a server with an unknown setting started")
			}
			t.Log(err)
			for _, w := range []string{"it exited", s.DataDir, "no_such_setting"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q: %v", w, err)
				}
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Errorf("%s holds %d entries after a failed start, want none", dir, len(left))
			}
			if proc.Alive(s.proc.Pid()) {
				t.Errorf("pid %d still runs after a failed start", s.proc.Pid())
			}
		})
	}
}

// badSetting makes a server refuse to start.
type badSetting struct{ driver }

func (b badSetting) settings(bool) []string { return []string{"no_such_setting=1"} }

func TestStartErrors(t *testing.T) {
	requireKind(t, MariaDB)
	missing := filepath.Join(t.TempDir(), "missing")
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	cases := map[string]struct {
		ctx  context.Context
		opt  Options
		want []string
	}{
		"missing dir": {t.Context(), Options{Kind: MariaDB, Dir: missing}, []string{missing, "does not exist"}},
		"no dir":      {t.Context(), Options{Kind: MariaDB}, []string{"no directory"}},
		"not a dir":   {t.Context(), Options{Kind: MariaDB, Dir: file}, []string{file, "not a directory"}},
		"bad kind":    {t.Context(), Options{Kind: "oracle", Dir: empty}, []string{`"oracle"`, "mariadb, mysql or postgresql"}},
		"cancelled":   {cancelled, Options{Kind: MariaDB, Dir: empty}, []string{"context canceled"}},
		"long path": {t.Context(), Options{Kind: MariaDB, Dir: longDir(t)},
			[]string{"more than the 107"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			s, err := Start(c.ctx, c.opt)
			if err == nil {
				s.Stop(context.Background())
				t.Fatal("Start succeeded")
			}
			t.Log(err)
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q: %v", w, err)
				}
			}
			if c.opt.Dir != "" {
				if left, _ := os.ReadDir(c.opt.Dir); len(left) != 0 {
					t.Errorf("%s holds %d entries after a failed start, want none", c.opt.Dir, len(left))
				}
			}
		})
	}
}

// longDir is a directory whose path leaves no room for a socket name.
func longDir(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), strings.Repeat("d", 100))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestUnreachableDir: as root, PostgreSQL runs as postgres, which cannot
// enter a 0700 root directory; Start must say which and what to do.
func TestUnreachableDir(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root runs PostgreSQL as another user")
	}
	requireKind(t, PostgreSQL)
	dir := serverDir(t)
	locked := filepath.Join(dir, "locked")
	if err := os.Mkdir(locked, 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := Start(t.Context(), Options{Kind: PostgreSQL, Dir: locked})
	if err == nil {
		t.Fatal("Start succeeded in a directory postgres cannot enter")
	}
	t.Log(err)
	for _, w := range []string{"cannot enter " + locked, "chmod o+x " + locked} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error lacks %q: %v", w, err)
		}
	}
	if left, _ := os.ReadDir(locked); len(left) != 0 {
		t.Errorf("%s holds %d entries after a failed start, want none", locked, len(left))
	}
}
