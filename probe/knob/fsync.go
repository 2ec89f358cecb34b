package knob

import (
	"context"
	"fmt"
	"strings"

	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/db"
)

var fsyncSettings = map[string]string{
	"mode":    "off: writes are not made durable (the probe's --sync none; a managed database started with its syncs off); on: they are (default off)",
	"apply":   "for a server perfbisect does not manage (--db existing): the command that restarts it with its syncs off (run with /bin/sh -c)",
	"revert":  "with apply: the command that restarts it with its syncs back on",
	"timeout": "with apply: how long each command may run (default 60s)",
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
	// restart runs the playbook's commands for an existing server; nil
	// when the playbook gives none.
	restart *shellKnob
}

func newFsync(s Settings) (Knob, error) {
	mode := "off"
	if v, ok := s["mode"]; ok {
		if err := oneOf("fsync", "mode", v, "off", "on"); err != nil {
			return nil, err
		}
		mode = v
	}
	k := &fsyncKnob{on: mode == "on", settings: withDefaults(s, Settings{"mode": mode})}
	_, hasApply := s["apply"]
	_, hasRevert := s["revert"]
	switch {
	case hasApply != hasRevert:
		return nil, fmt.Errorf("fsync: apply and revert go together: the command that restarts the server with its syncs off, and the one that restarts it as it was")
	case hasApply:
		sh := Settings{"apply": s["apply"], "revert": s["revert"]}
		if v, ok := s["timeout"]; ok {
			sh["timeout"] = v
		}
		restart, err := newShell(sh)
		if err != nil {
			return nil, fmt.Errorf("fsync: %v", err)
		}
		k.restart = restart.(*shellKnob)
	case s["timeout"] != "":
		return nil, fmt.Errorf("fsync: timeout is for the apply and revert commands, which are not given")
	}
	return k, nil
}

// byCommands reports whether the playbook's own commands turn the syncs:
// apply and revert given, for a tool whose server perfbisect does not start.
func (k *fsyncKnob) byCommands(w probe.Spec) bool {
	return k.restart != nil && w.RunsTool() && !w.Managed()
}

func (k *fsyncKnob) Plan(ctx context.Context, env Env, w probe.Spec) (Change, error) {
	switch {
	case k.byCommands(w):
		c, err := k.restart.Plan(ctx, env, w)
		return k.asFsync(c), err
	case k.restart != nil:
		return Change{}, fmt.Errorf("fsync: apply and revert are for a server perfbisect does not manage (--db existing); the %s workload's syncs are turned off without them", w.Workload)
	case w.RunsTool():
		return k.planTool(w)
	}
	to := k.syncFor(w)
	c := Change{Knob: "fsync", Settings: k.settings, Before: "sync " + w.Sync.String(), After: "sync " + to.String()}
	if to == w.Sync {
		c.Do = []string{fmt.Sprintf("nothing: the workload already runs with --sync %s", w.Sync)}
	} else {
		c.Do = []string{fmt.Sprintf("run the workload with --sync %s instead of --sync %s", to, w.Sync)}
	}
	c.Undo = []string{"nothing on the host: only this step's workload changes"}
	return c, nil
}

// planTool is the knob for a workload that runs a tool: a managed
// database's server is started for the step with its syncs off (each step
// has a server of its own, in the step's data dir, removed at its end);
// anything else cannot be changed by perfbisect.
func (k *fsyncKnob) planTool(w probe.Spec) (Change, error) {
	if !w.Managed() {
		why := fmt.Sprintf("the %s workload decides its own syncs: give the step a workload without them (fio: leave out --fsync/--fdatasync), or a shell knob", w.Workload)
		if w.IsDatabase() {
			why = fmt.Sprintf("the existing %s server is not perfbisect's to restart: give this knob the commands that do it (with: {apply: …, revert: …}), or make the step manual", w.Server)
		}
		return Change{}, &Unavailable{Knob: "fsync", Reason: why}
	}
	on, off := "syncs on (the server's defaults)", "syncs off: "+strings.Join(db.SyncOffHere(w.Server), ", ")
	from, to := on, on
	if w.SyncOff() {
		from = off
	}
	if !k.on {
		to = off
	}
	c := Change{Knob: "fsync", Settings: k.settings, Before: from, After: to}
	switch {
	case from == to:
		c.Do = []string{fmt.Sprintf("nothing: the step's %s already runs with %s", w.Server, to)}
	case !k.on:
		c.Do = []string{fmt.Sprintf("start this step's managed %s (a fresh server in the step's data dir) with %s", w.Server, strings.Join(db.SyncOffHere(w.Server), " "))}
	default:
		c.Do = []string{fmt.Sprintf("start this step's managed %s with its default syncs", w.Server)}
	}
	c.Undo = []string{fmt.Sprintf("nothing on the host: the step's %s is stopped and its data dir removed at the end of the step; the next step's server starts with the workload's own settings", w.Server)}
	return c, nil
}

// asFsync is the shell knob's change told as this knob's.
func (k *fsyncKnob) asFsync(c Change) Change {
	c.Knob, c.Settings = "fsync", k.settings
	c.Before, c.After = "syncs as the server runs them", "syncs off by the playbook's command"
	return c
}

func (k *fsyncKnob) Apply(ctx context.Context, env Env, w probe.Spec) (probe.Spec, Change, Revert, error) {
	if k.byCommands(w) {
		w, c, revert, err := k.restart.Apply(ctx, env, w)
		out := c.After
		c = k.asFsync(c)
		if out != "" {
			c.After += ": " + out
		}
		return w, c, revert, err
	}
	c, err := k.Plan(ctx, env, w)
	if err != nil {
		return w, c, nil, err
	}
	// The change lives only in the returned spec, which the session uses for
	// this step alone (a managed server is started from it): there is
	// nothing on the host to put back.
	w.Sync = k.syncFor(w)
	return w, c, nothingToRevert, nil
}

// syncFor is the sync mode the workload runs with: none when off. When on,
// a managed database gets its default syncs (fdatasync), and the probe
// keeps its own way of syncing, or fdatasync if it did not sync.
func (k *fsyncKnob) syncFor(w probe.Spec) probe.SyncMode {
	switch {
	case !k.on:
		return probe.SyncNone
	case w.RunsTool(), w.Sync == probe.SyncNone, w.Sync == "":
		return probe.SyncFdatasync
	}
	return w.Sync
}
