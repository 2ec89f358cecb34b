package knob

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfbisect/perfbisect/probe"
)

func TestFsync(t *testing.T) {
	uu := map[string]struct {
		mode         string
		from, to     probe.SyncMode
		before, does string
	}{
		"off":               {"off", probe.SyncFdatasync, probe.SyncNone, "sync fdatasync", "run the workload with --sync none instead of --sync fdatasync"},
		"off from dsync":    {"off", probe.SyncDsync, probe.SyncNone, "sync dsync", "run the workload with --sync none instead of --sync dsync"},
		"off already":       {"off", probe.SyncNone, probe.SyncNone, "sync none", "nothing: the workload already runs with --sync none"},
		"on restores":       {"on", probe.SyncNone, probe.SyncFdatasync, "sync none", "run the workload with --sync fdatasync instead of --sync none"},
		"on keeps its sync": {"on", probe.SyncDirect, probe.SyncDirect, "sync direct", "nothing: the workload already runs with --sync direct"},
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) {
			ctx := testCtx(t)
			w := spec(t.TempDir())
			w.Sync = u.from
			k := newKnob(t, "fsync", Settings{"mode": u.mode})
			got, c, revert, err := k.Apply(ctx, Env{}, w)
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			if got.Sync != u.to || c.Before != u.before || c.After != "sync "+string(u.to) || c.Do[0] != u.does {
				t.Errorf("Apply: sync %s, change %+v; want sync %s, Before %q, Do %q", got.Sync, c, u.to, u.before, u.does)
			}
			if c.Settings["mode"] != u.mode {
				t.Errorf("Settings = %v, want mode %s recorded", c.Settings, u.mode)
			}
			got.Sync = w.Sync
			if got != w {
				t.Errorf("Apply changed more than Sync: %+v", got)
			}
			if err := revert(ctx); err != nil {
				t.Errorf("revert: %v", err)
			}
		})
	}
}

// A managed database gets a server of its own for the step, started with
// its syncs off: the plan names every setting; nothing stays on the host.
func TestFsyncManagedDatabase(t *testing.T) {
	for _, u := range []struct {
		workload string
		settings []string
	}{
		{"sysbench", []string{"innodb_flush_log_at_trx_commit=0", "sync_binlog=0", "innodb_flush_method=nosync"}},
		{"pgbench", []string{"fsync=off"}},
	} {
		t.Run(u.workload, func(t *testing.T) {
			w := probe.DefaultFor(u.workload)
			w.Dir = t.TempDir()
			got, c, revert, err := newKnob(t, "fsync", nil).Apply(testCtx(t), Env{}, w)
			if err != nil {
				t.Fatal(err)
			}
			if !got.SyncOff() || w.SyncOff() {
				t.Errorf("Apply: Sync %q (was %q), want the step's spec with its syncs off and the input untouched", got.Sync, w.Sync)
			}
			do := strings.Join(c.Do, "\n")
			for _, s := range u.settings {
				if !strings.Contains(do, s) || !strings.Contains(c.After, s) {
					t.Errorf("the plan does not name %s: Do %q, After %q", s, do, c.After)
				}
			}
			if !strings.Contains(c.Before, "syncs on") {
				t.Errorf("Before = %q, want the server's defaults", c.Before)
			}
			if err := revert(testCtx(t)); err != nil {
				t.Error(err)
			}
			on, _, _, err := newKnob(t, "fsync", Settings{"mode": "on"}).Apply(testCtx(t), Env{}, got)
			if err != nil || on.SyncOff() {
				t.Errorf("mode on after off: Sync %q, err %v; want syncs back on", on.Sync, err)
			}
		})
	}
}

// What perfbisect does not run itself it cannot restart: the step is
// unavailable, and the reason says what to do instead.
func TestFsyncUnmanagedWorkload(t *testing.T) {
	existing := probe.DefaultFor("sysbench")
	existing.DB, existing.DBHost = probe.DBExisting, "db1"
	fio := probe.DefaultFor("fio")
	fio.Args = "--rw=write"
	for want, w := range map[string]probe.Spec{"give this knob the commands": existing, "leave out --fsync": fio} {
		_, err := newKnob(t, "fsync", nil).Plan(testCtx(t), Env{}, w)
		wantUnavailable(t, err, want)
	}
}

// An existing server is restarted by the playbook's own commands, given to
// the fsync knob: they run on apply and on revert, and the change says so.
func TestFsyncExistingServerCommands(t *testing.T) {
	dir := t.TempDir()
	w := probe.DefaultFor("sysbench")
	w.DB, w.DBSocket, w.Dir = probe.DBExisting, "/run/mysqld/mysqld.sock", dir
	marker := filepath.Join(dir, "syncs")
	k := newKnob(t, "fsync", Settings{"apply": "echo off > " + marker + "; echo restarted", "revert": "echo on > " + marker})
	c, err := k.Plan(testCtx(t), Env{}, w)
	if err != nil || c.Knob != "fsync" || len(c.Do) != 1 || !strings.Contains(c.Do[0], "echo off") {
		t.Fatalf("Plan = %+v, %v; want the playbook's apply command", c, err)
	}
	_, c, revert, err := k.Apply(testCtx(t), Env{}, w)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(marker); string(b) != "off\n" || !strings.Contains(c.After, "restarted") {
		t.Errorf("after apply: marker %q, After %q", b, c.After)
	}
	if err := revert(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(marker); string(b) != "on\n" {
		t.Errorf("after revert: marker %q, want on", b)
	}

	// On a managed server or the probe, perfbisect turns syncs off itself.
	managed := probe.DefaultFor("sysbench")
	managed.Dir = dir
	if _, err := k.Plan(testCtx(t), Env{}, managed); err == nil || !strings.Contains(err.Error(), "does not manage") {
		t.Errorf("commands on a managed server: %v, want an error", err)
	}
	for _, s := range []Settings{{"apply": "x"}, {"revert": "x"}, {"timeout": "5s"}} {
		if _, err := New("fsync", s); err == nil {
			t.Errorf("fsync %v: no error", s)
		}
	}
}
