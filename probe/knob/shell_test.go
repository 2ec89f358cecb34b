package knob

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestShell(t *testing.T) {
	ctx := testCtx(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "marker")
	apply := `echo "$PERFBISECT_DATA_DIR" > ` + marker + ` && echo applied`
	revertCmd := "rm " + marker
	k := newKnob(t, "shell", Settings{"apply": apply, "revert": revertCmd})

	plan, err := k.Plan(ctx, Env{}, spec(dir))
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	if len(plan.Do) != 1 || plan.Do[0] != apply || len(plan.Undo) != 1 || plan.Undo[0] != revertCmd {
		t.Errorf("Plan = %q / %q, want the commands verbatim", plan.Do, plan.Undo)
	}
	if plan.Settings["shell"] != "/bin/sh" || plan.Settings["timeout"] != "1m0s" {
		t.Errorf("Settings = %v, want the defaults recorded", plan.Settings)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Plan ran the command")
	}

	_, c, revert, err := k.Apply(ctx, Env{}, spec(dir))
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if b, err := os.ReadFile(marker); err != nil || strings.TrimSpace(string(b)) != dir {
		t.Errorf("marker = %q, %v; want the data dir %s in it", b, err, dir)
	}
	if c.After != "applied" {
		t.Errorf("After = %q, want the command's output", c.After)
	}
	if err := revert(ctx); err != nil {
		t.Fatalf("revert: %v", err)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("marker still there after revert (err %v)", err)
	}
	if err := revert(ctx); err != nil { // rm would fail if it ran again
		t.Errorf("second revert: %v", err)
	}
}

func TestShellApplyFails(t *testing.T) {
	ctx := testCtx(t)
	dir := t.TempDir()
	reverted := filepath.Join(dir, "reverted")
	k := newKnob(t, "shell", Settings{
		"apply":  "echo starting; echo 'no such device: /dev/nvme9' >&2; exit 3",
		"revert": "touch " + reverted,
	})
	_, _, revert, err := k.Apply(ctx, Env{}, spec(dir))
	wantErr(t, err, "shell: apply: /bin/sh -c", "failed (exit status 3): no such device: /dev/nvme9", "the revert command ran after it")
	if revert != nil {
		t.Errorf("a failed Apply returned a revert")
	}
	if _, err := os.Stat(reverted); err != nil {
		t.Errorf("the revert command did not run after the failed apply: %v", err)
	}
}

func TestShellRevertFails(t *testing.T) {
	ctx := testCtx(t)
	k := newKnob(t, "shell", Settings{"apply": "true", "revert": "echo still busy >&2; false", "shell": "/bin/bash"})
	_, _, revert, err := k.Apply(ctx, Env{}, spec(t.TempDir()))
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	err = revert(ctx)
	wantErr(t, err, "shell revert failed, so the step's change may still be in place", "failed (exit status 1): still busy",
		"(run it by hand: /bin/bash -c 'echo still busy >&2; false')")
	// It is tried again: the change is still there.
	if err2 := revert(ctx); err2 == nil {
		t.Errorf("second revert after a failure succeeded without running")
	}
}

func TestShellTimeout(t *testing.T) {
	ctx := testCtx(t)
	dir := t.TempDir()
	k := newKnob(t, "shell", Settings{"apply": "sleep 30 & sleep 30", "revert": "true", "timeout": "200ms"})
	start := time.Now()
	_, _, _, err := k.Apply(ctx, Env{}, spec(dir))
	wantErr(t, err, "killed after the 200ms timeout")
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the timeout took %v: the shell's children were not killed", d)
	}
}

func TestShellCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(testCtx(t))
	cancel()
	_, _, _, err := newKnob(t, "shell", Settings{"apply": "sleep 5", "revert": "true"}).Apply(ctx, Env{}, spec(t.TempDir()))
	wantErr(t, err, "shell: apply: ", "context canceled")
}

func TestShellMissing(t *testing.T) {
	_, err := newKnob(t, "shell", Settings{"apply": "true", "revert": "true", "shell": "/bin/perfbisect-no-such-shell"}).Plan(testCtx(t), Env{}, spec(""))
	wantUnavailable(t, err, "the shell /bin/perfbisect-no-such-shell is not installed here")
}

// Reverts run on Ctrl-C, when the step's context is already cancelled:
// they must still do their work.
func TestShellRevertCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(testCtx(t))
	marker := filepath.Join(t.TempDir(), "marker")
	_, _, revert, err := newKnob(t, "shell", Settings{"apply": "touch " + marker, "revert": "rm " + marker}).Apply(ctx, Env{}, spec(""))
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	cancel()
	if err := revert(ctx); err != nil {
		t.Fatalf("revert with a cancelled context: %v", err)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("marker still there (err %v)", err)
	}
}
