package knob

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/testutil"
	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/sysinfo"
)

func TestTmpfs(t *testing.T) {
	testutil.RequireRoot(t)
	ctx := testCtx(t)
	env := Env{StateDir: filepath.Join(t.TempDir(), "state"), Root: true}
	w := spec(t.TempDir())
	k := newKnob(t, "tmpfs", nil)

	plan, err := k.Plan(ctx, env, w)
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	orig := mountAt(t, mustMountOf(t, w.Dir))
	if !strings.HasPrefix(plan.Before, orig.FSType+" (") {
		t.Errorf("Before = %q, want the data dir's filesystem, %s, first", plan.Before, orig.FSType)
	}
	if want := "mount -t tmpfs -o size=256m,mode=0700,nosuid,nodev tmpfs " + env.StateDir + "/tmpfs-XXXXXX"; !contains(plan.Do, want) {
		t.Errorf("Plan.Do = %q, want %q in it", plan.Do, want)
	}
	if _, err := os.Stat(env.StateDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Plan made %s (err %v): it must change nothing", env.StateDir, err)
	}

	got, c, revert, err := k.Apply(ctx, env, w)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	mnt := filepath.Dir(got.Dir)
	t.Cleanup(func() { revert(ctx) }) // in case a check below fails
	if filepath.Base(got.Dir) != "data" || filepath.Dir(mnt) != env.StateDir || !strings.HasPrefix(filepath.Base(mnt), "tmpfs-") {
		t.Fatalf("Dir = %s, want %s/tmpfs-*/data", got.Dir, env.StateDir)
	}
	m := mountAt(t, mnt)
	if m.FSType != "tmpfs" || !strings.Contains(","+m.SuperOpts+",", ",size=262144k,") || !strings.Contains(m.SuperOpts, "mode=700") {
		t.Errorf("mounted %s %s on %s, want tmpfs size=262144k,mode=700", m.FSType, m.SuperOpts, mnt)
	}
	if c.After != "tmpfs size=256MiB at "+mnt+" ("+m.SuperOpts+")" {
		t.Errorf("After = %q", c.After)
	}
	if !contains(c.Do, "mount -t tmpfs -o size=256m,mode=0700,nosuid,nodev tmpfs "+mnt) || !contains(c.Undo, "umount "+mnt) {
		t.Errorf("Apply's change names placeholders, not the real %s: %q / %q", mnt, c.Do, c.Undo)
	}
	if err := os.WriteFile(filepath.Join(got.Dir, "probe.dat"), []byte("x"), 0o600); err != nil {
		t.Errorf("write in the tmpfs: %v", err)
	}
	if got.Sync != w.Sync || got.FileSize != w.FileSize {
		t.Errorf("Apply changed more than Dir: %+v", got)
	}

	// Reverts run on Ctrl-C, when the step's context is already cancelled.
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := revert(cancelled); err != nil {
		t.Fatalf("revert: %v", err)
	}
	if mounted(t, mnt) {
		t.Errorf("%s is still mounted after revert", mnt)
	}
	if _, err := os.Stat(mnt); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s still exists after revert (err %v)", mnt, err)
	}
	if names := testutil.Entries(t, env.StateDir); len(names) != 0 {
		t.Errorf("revert left %v in %s", names, env.StateDir)
	}
	if err := revert(ctx); err != nil {
		t.Errorf("second revert: %v, want a no-op", err)
	}
}

func TestTmpfsSize(t *testing.T) {
	testutil.RequireRoot(t)
	ctx := testCtx(t)
	env := Env{StateDir: t.TempDir(), Root: true}
	uu := map[string]struct {
		s       Settings
		threads int
		file    probe.Size
		opt     string // the size option in mountinfo
	}{
		"twice the files": {nil, 3, 100 * probe.MiB, "size=614400k"},
		"set":             {Settings{"size": "300m"}, 1, 64 * probe.MiB, "size=307200k"},
		"rounded to page": {Settings{"size": "1000001"}, 1, 4 * probe.KiB, "size=980k"},
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) {
			w := spec(t.TempDir())
			w.Threads, w.FileSize = u.threads, u.file
			got, _, revert, err := newKnob(t, "tmpfs", u.s).Apply(ctx, env, w)
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			defer func() {
				if err := revert(ctx); err != nil {
					t.Errorf("revert: %v", err)
				}
			}()
			if m := mountAt(t, filepath.Dir(got.Dir)); !strings.Contains(","+m.SuperOpts+",", ","+u.opt+",") {
				t.Errorf("tmpfs options %s, want %s", m.SuperOpts, u.opt)
			}
		})
	}
}

// A state dir reached through a symlink is mounted at its real path, which
// is the one the mount table shows.
func TestTmpfsStateDirLink(t *testing.T) {
	testutil.RequireRoot(t)
	ctx := testCtx(t)
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "state")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	got, _, revert, err := newKnob(t, "tmpfs", nil).Apply(ctx, Env{StateDir: link, Root: true}, spec(t.TempDir()))
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if filepath.Dir(filepath.Dir(got.Dir)) != real || mountAt(t, filepath.Dir(got.Dir)).FSType != "tmpfs" {
		t.Errorf("Dir = %s, want a tmpfs under %s", got.Dir, real)
	}
	if err := revert(ctx); err != nil {
		t.Fatalf("revert: %v", err)
	}
	if names := testutil.Entries(t, real); len(names) != 0 {
		t.Errorf("revert left %v in %s", names, real)
	}
}

func TestTmpfsTooSmall(t *testing.T) {
	testutil.RequireRoot(t)
	w := spec(t.TempDir())
	w.Threads = 2
	_, err := newKnob(t, "tmpfs", Settings{"size": "64m"}).Plan(testCtx(t), Env{StateDir: t.TempDir(), Root: true}, w)
	wantErr(t, err, "size 64MiB cannot hold the workload's 2 × 64MiB files (set size to at least 128MiB)")
}

func TestTmpfsBusy(t *testing.T) {
	testutil.RequireRoot(t)
	ctx := testCtx(t)
	defer func(d time.Duration) { busyFor = d }(busyFor)
	busyFor = 200 * time.Millisecond

	got, _, revert, err := newKnob(t, "tmpfs", nil).Apply(ctx, Env{StateDir: t.TempDir(), Root: true}, spec(t.TempDir()))
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	mnt := filepath.Dir(got.Dir)
	f, err := os.Create(filepath.Join(got.Dir, "held"))
	if err != nil {
		t.Fatal(err)
	}
	err = revert(ctx)
	f.Close()
	wantErr(t, err, "tmpfs still mounted on "+mnt+": device or resource busy", "fuser -vm "+mnt+" shows who holds it; unmount it by hand: umount "+mnt+")")
	if !mounted(t, mnt) {
		t.Errorf("a failed revert unmounted %s", mnt)
	}
	// Once the file is closed, calling the revert again finishes the job.
	if err := revert(ctx); err != nil {
		t.Fatalf("revert after closing the file: %v", err)
	}
	if mounted(t, mnt) {
		t.Errorf("%s still mounted", mnt)
	}
}

func TestTmpfsNotRoot(t *testing.T) {
	ctx := testCtx(t)
	k := newKnob(t, "tmpfs", nil)
	env := Env{StateDir: t.TempDir()} // Root false: no mount, a directory in /dev/shm
	w := spec(t.TempDir())
	plan, err := k.Plan(ctx, env, w)
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	if !strings.Contains(plan.Do[0], "not root") || !strings.Contains(plan.Do[0], shmDir+"/perfbisect-tmpfs-XXXXXX") {
		t.Errorf("Plan.Do = %q, want it to say it uses %s because it is not root", plan.Do, shmDir)
	}
	got, c, revert, err := k.Apply(ctx, env, w)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	dir := filepath.Dir(got.Dir)
	if filepath.Dir(dir) != shmDir || !strings.HasPrefix(c.After, "a directory in the shared tmpfs") {
		t.Errorf("Dir = %s, After = %q; want a directory in %s", got.Dir, c.After, shmDir)
	}
	if err := os.WriteFile(filepath.Join(got.Dir, "probe.dat"), []byte("x"), 0o600); err != nil {
		t.Errorf("write: %v", err)
	}
	if err := revert(ctx); err != nil {
		t.Fatalf("revert: %v", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s still exists after revert (err %v)", dir, err)
	}
	if err := revert(ctx); err != nil {
		t.Errorf("second revert: %v", err)
	}
}

func TestTmpfsOptions(t *testing.T) {
	uu := map[probe.Size]string{
		256 * probe.MiB: "size=256m,mode=0700",
		2 * probe.GiB:   "size=2g,mode=0700",
		980 * probe.KiB: "size=980k,mode=0700",
		4097:            "size=4097,mode=0700",
	}
	for size, want := range uu {
		if got := tmpfsOptions(size, 0o700); got != want {
			t.Errorf("tmpfsOptions(%v) = %s, want %s", size, got, want)
		}
	}
}

// mustMountOf is the mount point holding dir.
func mustMountOf(t *testing.T, dir string) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := sysinfo.Mounts()
	if err != nil {
		t.Fatal(err)
	}
	m, _ := sysinfo.MountOf(ms, real)
	return m.Point
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// A managed PostgreSQL runs as the postgres user: the tmpfs and the
// directories to it must let that user through (0711), and the plan says
// so. An existing server's data is not perfbisect's to move.
func TestTmpfsDatabase(t *testing.T) {
	testutil.RequireRoot(t)
	ctx := testCtx(t)
	env := Env{StateDir: filepath.Join(t.TempDir(), "state"), Root: true}
	if err := os.Mkdir(env.StateDir, 0o700); err != nil {
		t.Fatal(err)
	}
	w := probe.DefaultFor(probe.WorkloadPgbench)
	w.Dir = t.TempDir()
	got, c, revert, err := newKnob(t, "tmpfs", nil).Apply(ctx, env, w)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	t.Cleanup(func() { revert(ctx) })
	if !contains(c.Do, "mount -t tmpfs -o size=1g,mode=0711,nosuid,nodev tmpfs "+filepath.Dir(got.Dir)) {
		t.Errorf("Do = %q, want a 1g tmpfs with mode 0711", c.Do)
	}
	for _, d := range []string{env.StateDir, filepath.Dir(got.Dir), got.Dir} {
		fi, err := os.Stat(d)
		if err != nil || fi.Mode().Perm()&0o011 != 0o011 || fi.Mode().Perm()&0o044 != 0 {
			t.Errorf("%s: mode %v (err %v), want others to pass through but not list it", d, fi.Mode().Perm(), err)
		}
	}
	if err := revert(ctx); err != nil {
		t.Fatal(err)
	}

	w.DB, w.DBHost = probe.DBExisting, "db1"
	_, err = newKnob(t, "tmpfs", nil).Plan(ctx, env, w)
	wantUnavailable(t, err, "not perfbisect's to move")
}
