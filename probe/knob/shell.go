package knob

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/perfbisect/perfbisect/internal/proc"
	"github.com/perfbisect/perfbisect/internal/shell"
	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/journal"
)

var shellSettings = map[string]string{
	"apply":   "the command that makes the change (required); it also sees PERFBISECT_DATA_DIR, the workload's data dir",
	"revert":  "the command that puts it back (required; \"true\" when there is nothing to put back); also run when apply fails, to undo any part of it",
	"shell":   "the shell that runs both, as shell -c COMMAND (default /bin/sh)",
	"timeout": "how long each command may run before it is killed (default 60s)",
}

func init() {
	register(Kind{
		Name:     "shell",
		Summary:  "run a command the playbook gives to make a change, and another to put it back",
		Settings: shellSettings,
		New:      newShell,
	})
}

type shellKnob struct {
	apply, revert, shell string
	timeout              time.Duration
	settings             Settings
}

func newShell(s Settings) (Knob, error) {
	k := &shellKnob{shell: "/bin/sh", timeout: time.Minute}
	var err error
	if k.apply, err = required("shell", s, "apply", "the command that makes the change"); err != nil {
		return nil, err
	}
	if k.revert, err = required("shell", s, "revert", `the command that puts the change back, or "true" when there is nothing to put back`); err != nil {
		return nil, err
	}
	if v, ok := s["shell"]; ok {
		if v == "" {
			return nil, fmt.Errorf("shell: shell %q: want a shell program, like /bin/sh or /bin/bash", v)
		}
		k.shell = v
	}
	if v, ok := s["timeout"]; ok {
		if k.timeout, err = parseDuration("shell", "timeout", v); err != nil {
			return nil, err
		}
	}
	k.settings = withDefaults(s, Settings{"shell": k.shell, "timeout": k.timeout.String()})
	return k, nil
}

func (k *shellKnob) Plan(ctx context.Context, env Env, w probe.Spec) (Change, error) {
	// The commands are shown as the playbook wrote them: they are what will
	// run, word for word, with shell -c.
	c := Change{Knob: "shell", Settings: k.settings, Do: []string{k.apply}, Undo: []string{k.revert}}
	if _, err := exec.LookPath(k.shell); err != nil {
		return c, &Unavailable{Knob: "shell", Reason: fmt.Sprintf("the shell %s is not installed here", k.shell)}
	}
	return c, nil
}

func (k *shellKnob) Apply(ctx context.Context, env Env, w probe.Spec) (probe.Spec, Change, Revert, error) {
	c, err := k.Plan(ctx, env, w)
	if err != nil {
		return w, c, nil, err
	}
	dir, err := dataDir(w)
	if err != nil {
		return w, c, nil, fmt.Errorf("shell: %v", err)
	}
	sh := func(ctx context.Context, script string) (string, error) {
		return runShell(ctx, env, k.shell, script, k.timeout, "PERFBISECT_DATA_DIR="+dir)
	}
	revert := once(func(ctx context.Context) error {
		ctx, cancel := detached(ctx, k.timeout)
		defer cancel()
		if _, err := sh(ctx, k.revert); err != nil {
			return fmt.Errorf("shell revert failed, so the step's change may still be in place: %v (run it by hand: %s)", err, shell.Join(k.shell, "-c", k.revert))
		}
		return nil
	})
	if err := will(env, "the playbook's shell command "+shell.Quote(k.apply)+" ran",
		journal.Action{Shell: &journal.Shell{Shell: k.shell, Script: k.revert, Env: []string{"PERFBISECT_DATA_DIR=" + dir}, TimeoutS: k.timeout.Seconds()}}); err != nil {
		return w, c, nil, fmt.Errorf("shell: %v", err)
	}
	out, err := sh(ctx, k.apply)
	if err != nil {
		// The command may have done part of its work before it failed: its
		// revert puts back what it can, as after a successful apply.
		err = fmt.Errorf("shell: apply: %v", err)
		if rerr := revert(ctx); rerr != nil {
			return w, c, nil, errors.Join(err, rerr)
		}
		return w, c, nil, fmt.Errorf("%v (the revert command ran after it)", err)
	}
	c.After = out
	return w, c, revert, nil
}

// runShell runs script with shell -c, killing it and everything it started
// after timeout, and returns the last lines of its output. A failure names
// the exact command, how it ended and what it said.
func runShell(ctx context.Context, env Env, shell, script string, timeout time.Duration, vars ...string) (string, error) {
	out, err := run(ctx, env, proc.Cmd{Path: shell, Args: []string{"-c", script}, Env: append(os.Environ(), vars...), Timeout: timeout})
	last := proc.Tail{Keep: 5}
	last.Write([]byte(out))
	return last.String(), err
}
