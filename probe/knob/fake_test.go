package knob

import (
	"strings"
	"testing"

	"github.com/perfbisect/perfbisect/internal/proc/proctest"
	"github.com/perfbisect/perfbisect/internal/shell"
	"github.com/perfbisect/perfbisect/probe/sysinfo"
)

// These tests put proctest's fake runner in place of the commands knobs
// run: the exact argv, and the messages made of what the commands answer,
// in milliseconds and without root. The tests beside them run the real
// commands and check their effect on the host.

// dataMountOf is the mount holding dir, as the knob finds it.
func dataMountOf(t *testing.T, dir string) sysinfo.Mount {
	t.Helper()
	_, m, err := dataMount(spec(dir))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestFakeMountOptions(t *testing.T) {
	dir := t.TempDir()
	point := dataMountOf(t, dir).Point
	f := proctest.New(t)
	f.ExpectRun("mount", "-o", "remount,noatime", point)
	// allow-root: whatever holds the test's directory, only the fake runs.
	k := newKnob(t, "mount-options", Settings{"options": "noatime", "allow-root": "true"})
	env := Env{Root: true, Runner: f}
	_, c, revert, err := k.Apply(testCtx(t), env, spec(dir))
	if err != nil {
		t.Fatal(err)
	}
	if want := "mount -o remount,noatime " + shell.Quote(point); len(c.Do) != 1 || c.Do[0] != want {
		t.Errorf("Do = %q, want %q: what is shown is what runs", c.Do, want)
	}
	if len(c.Undo) != 1 || !strings.HasPrefix(c.Undo[0], "mount -o remount,") {
		t.Errorf("Undo = %q", c.Undo)
	}
	// The fake changed nothing, so the revert finds nothing to put back and
	// runs no command (the fake fails the test if it does).
	if err := revert(testCtx(t)); err != nil {
		t.Errorf("revert: %v", err)
	}
}

func TestFakeMountOptionsRefused(t *testing.T) {
	dir := t.TempDir()
	point := dataMountOf(t, dir).Point
	f := proctest.New(t)
	f.ExpectRun("mount", "-o", "remount,noatime,perfbisect_bogus", point).
		Stderr("mount: " + point + ": mount point not mounted or bad option.\n       dmesg(1) may have more information after failed mount system call.\n").
		Exit(32)
	k := newKnob(t, "mount-options", Settings{"options": "noatime,perfbisect_bogus", "allow-root": "true"})
	_, _, revert, err := k.Apply(testCtx(t), Env{Root: true, Runner: f}, spec(dir))
	want := "mount-options: mount -o remount,noatime,perfbisect_bogus " + shell.Quote(point) + " failed (exit status 32): mount: " + point +
		": mount point not mounted or bad option. | dmesg(1) may have more information after failed mount system call."
	if err == nil || err.Error() != want || revert != nil {
		t.Errorf("Apply: %v\nwant %s, and no revert", err, want)
	}
}

func TestFakeShell(t *testing.T) {
	dir := t.TempDir()
	f := proctest.New(t)
	f.ExpectRun("/bin/sh", "-c", "tune-it --on").WithEnv("PERFBISECT_DATA_DIR=" + dir).
		Stdout("1\n2\n3\n4\n5\n6\n7\n").Stderr("a warning\n")
	f.ExpectRun("/bin/sh", "-c", "tune-it --off").WithEnv("PERFBISECT_DATA_DIR=" + dir)
	k := newKnob(t, "shell", Settings{"apply": "tune-it --on", "revert": "tune-it --off"})
	_, c, revert, err := k.Apply(testCtx(t), Env{Runner: f}, spec(dir))
	if err != nil {
		t.Fatal(err)
	}
	if c.After != "3\n4\n5\n6\n7" {
		t.Errorf("After = %q, want the last 5 lines of its stdout", c.After)
	}
	if err := revert(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if err := revert(testCtx(t)); err != nil { // done: runs nothing again
		t.Errorf("second revert: %v", err)
	}
}

// A failed apply quotes the command's error, and its revert runs after it.
func TestFakeShellApplyFails(t *testing.T) {
	f := proctest.New(t)
	f.ExpectRun("/bin/sh", "-c", "attach-volume").Stdout("starting\n").Stderr("no such device: /dev/nvme9\n").Exit(3)
	f.ExpectRun("/bin/sh", "-c", "detach-volume")
	k := newKnob(t, "shell", Settings{"apply": "attach-volume", "revert": "detach-volume"})
	_, _, revert, err := k.Apply(testCtx(t), Env{Runner: f}, spec(t.TempDir()))
	want := "shell: apply: /bin/sh -c attach-volume failed (exit status 3): no such device: /dev/nvme9 (the revert command ran after it)"
	if err == nil || err.Error() != want || revert != nil {
		t.Errorf("Apply: %v\nwant %s, and no revert", err, want)
	}
}

// A revert that fails says so loudly, with how to do it by hand, and is
// tried again: the change is still there.
func TestFakeShellRevertFails(t *testing.T) {
	f := proctest.New(t)
	f.ExpectRun("/bin/bash", "-c", "true")
	for range 2 {
		f.ExpectRun("/bin/bash", "-c", "echo still busy >&2; false").Stderr("still busy\n").Exit(1)
	}
	k := newKnob(t, "shell", Settings{"apply": "true", "revert": "echo still busy >&2; false", "shell": "/bin/bash"})
	_, _, revert, err := k.Apply(testCtx(t), Env{Runner: f}, spec(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	want := "shell revert failed, so the step's change may still be in place: /bin/bash -c 'echo still busy >&2; false' failed (exit status 1): still busy " +
		"(run it by hand: /bin/bash -c 'echo still busy >&2; false')"
	for i := range 2 {
		if err := revert(testCtx(t)); err == nil || err.Error() != want {
			t.Errorf("revert %d: %v\nwant %s", i+1, err, want)
		}
	}
}

func TestFakeShellTimeout(t *testing.T) {
	f := proctest.New(t)
	f.ExpectRun("/bin/sh", "-c", "wait-forever").Stderr("waiting\n").Hold()
	f.ExpectRun("/bin/sh", "-c", "true")
	k := newKnob(t, "shell", Settings{"apply": "wait-forever", "revert": "true", "timeout": "20ms"})
	_, _, _, err := k.Apply(testCtx(t), Env{Runner: f}, spec(t.TempDir()))
	want := "shell: apply: /bin/sh -c wait-forever failed (killed after the 20ms timeout): waiting (the revert command ran after it)"
	if err == nil || err.Error() != want {
		t.Errorf("Apply: %v\nwant %s", err, want)
	}
}
