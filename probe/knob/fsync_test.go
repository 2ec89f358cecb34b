package knob

import (
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

func TestFsyncOtherWorkload(t *testing.T) {
	w := spec(t.TempDir())
	w.Workload = "sysbench"
	_, err := newKnob(t, "fsync", nil).Plan(testCtx(t), Env{}, w)
	wantUnavailable(t, err, "needs a database restart")
}
