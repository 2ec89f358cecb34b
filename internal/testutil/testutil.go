// Package testutil is the one home of the test helpers: tests here use real
// parts of the machine (tmpfs mounts, loop devices, root, external tools),
// and this package says when one is missing (skip locally, fail in CI). It
// imports nothing of perfbisect, so any package's tests may use it; the
// helpers that need a real host live in its subpackage hosttest.
package testutil

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// InCI reports whether the tests run in CI, where every real part they need
// must be there: a missing one fails the test instead of skipping it.
func InCI() bool { return os.Getenv("CI") != "" }

// RequireRoot skips a test that needs root, or fails it in CI.
func RequireRoot(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		Missing(t, "needs root (mounts, loop devices)")
	}
}

// RequireTool skips a test when a program is not installed, or fails it in CI
// (where .ci/run installs it).
func RequireTool(t testing.TB, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		Missing(t, fmt.Sprintf("needs %s (apt-get install %s)", name, name))
	}
	return path
}

// Missing skips a test whose prerequisite is not on this machine, or fails
// it in CI, which must provide everything.
func Missing(t testing.TB, why string) {
	t.Helper()
	if InCI() {
		t.Fatalf("%s; CI must provide it (see .ci/run)", why)
	}
	t.Skip(why)
}

// Tmpfs mounts a tmpfs of the given size (like "4m") on a fresh directory
// and unmounts it when the test ends.
func Tmpfs(t testing.TB, size string) string {
	t.Helper()
	RequireRoot(t)
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size+",mode=0700"); err != nil {
		t.Fatalf("mount tmpfs (size=%s) on %s: %v", size, dir, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmount tmpfs %s: %v", dir, err)
		}
	})
	return dir
}

// Entries lists the names in dir, for checks that a run left nothing behind.
func Entries(t testing.TB, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("read %s: %v", dir, err)
	}
	var names []string
	for _, d := range des {
		names = append(names, d.Name())
	}
	return names
}

// ClosesFile hands use a file (a pipe's read end) to pass to a program, and
// fails the test if it is still open when use returns: a runner closes the
// files it was given for a program, whether the program started or not.
func ClosesFile(t testing.TB, use func(f *os.File)) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	use(r)
	if _, err := r.Stat(); err == nil {
		t.Error("the file passed to the program is still open")
		r.Close()
	}
}
