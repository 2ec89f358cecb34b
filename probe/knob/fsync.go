package knob

import (
	"context"
	"fmt"

	"github.com/perfbisect/perfbisect/probe"
)

var fsyncSettings = map[string]string{
	"mode": "off: writes are not made durable (--sync none); on: they are, with fdatasync (default off)",
}

func init() {
	register(Kind{
		Name:     "fsync",
		Summary:  "turn the workload's syncs off (or back on) to see how much of the latency is the flush to the device",
		Settings: fsyncSettings,
		New:      newFsync,
	})
}

type fsyncKnob struct {
	on       bool
	settings Settings
}

func newFsync(s Settings) (Knob, error) {
	if err := checkSettings("fsync", s, fsyncSettings); err != nil {
		return nil, err
	}
	mode := "off"
	if v, ok := s["mode"]; ok {
		if err := oneOf("fsync", "mode", v, "off", "on"); err != nil {
			return nil, err
		}
		mode = v
	}
	return &fsyncKnob{on: mode == "on", settings: withDefaults(s, Settings{"mode": mode})}, nil
}

func (k *fsyncKnob) Plan(ctx context.Context, env Env, w probe.Spec) (Change, error) {
	// Only the built-in fsync probe is changed here. For sysbench or pgbench
	// the database itself must be restarted with its syncs off
	// (innodb_flush_log_at_trx_commit=0, sync_binlog=0,
	// innodb_flush_method=nosync; PostgreSQL fsync=off) and restarted again
	// with its old settings on revert: that goes here, in a later issue.
	if w.Workload != "" && w.Workload != "fsync" {
		return Change{}, &Unavailable{Knob: "fsync", Reason: fmt.Sprintf("turning syncs off in the %s workload needs a database restart, which perfbisect does not do yet", w.Workload)}
	}
	to := k.syncFor(w.Sync)
	c := Change{Knob: "fsync", Settings: k.settings, Before: "sync " + w.Sync.String(), After: "sync " + to.String()}
	if to == w.Sync {
		c.Do = []string{fmt.Sprintf("nothing: the workload already runs with --sync %s", w.Sync)}
	} else {
		c.Do = []string{fmt.Sprintf("run the workload with --sync %s instead of --sync %s", to, w.Sync)}
	}
	c.Undo = []string{"nothing on the host: only this step's workload changes"}
	return c, nil
}

func (k *fsyncKnob) Apply(ctx context.Context, env Env, w probe.Spec) (probe.Spec, Change, Revert, error) {
	c, err := k.Plan(ctx, env, w)
	if err != nil {
		return w, c, nil, err
	}
	w.Sync = k.syncFor(w.Sync)
	// The change lives only in the returned spec, which the session uses for
	// this step alone: there is nothing on the host to put back.
	return w, c, nothingToRevert, nil
}

// syncFor is the sync mode the workload runs with: none when off; when on, a
// workload that did not sync gets fdatasync, and one that already syncs
// keeps its own way of doing it.
func (k *fsyncKnob) syncFor(was probe.SyncMode) probe.SyncMode {
	switch {
	case !k.on:
		return probe.SyncNone
	case was == probe.SyncNone || was == "":
		return probe.SyncFdatasync
	}
	return was
}
