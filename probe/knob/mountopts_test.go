package knob

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfbisect/perfbisect/internal/testutil"
	"github.com/perfbisect/perfbisect/probe/sysinfo"
)

func TestMountOptions(t *testing.T) {
	uu := map[string]struct {
		mountOpts string // how the loop filesystem is mounted first
		options   string
		opts      string // per-mount options after Apply
		super     string // a filesystem option after Apply
	}{
		"noatime":          {"", "noatime", "rw,noatime", ""},
		"keeps nosuid":     {"nosuid,nodev", "noatime,nodiratime", "rw,nosuid,nodev,noatime,nodiratime", ""},
		"barrier, commit":  {"", "nobarrier,commit=60", "rw,relatime", "nobarrier"},
		"commit back":      {"commit=30", "commit=60", "rw,relatime", "commit=60"},
		"strictatime back": {"strictatime", "noatime,noexec", "rw,noexec,noatime", ""},
		"read-only":        {"", "ro", "ro,relatime", ""},
		"bind":             {"", "bind,ro", "ro,relatime", ""},
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) {
			_, mnt := testutil.LoopExt4(t, 64<<20)
			if u.mountOpts != "" {
				testutil.Run(t, "mount", "-o", "remount,"+u.mountOpts, mnt)
			}
			ctx := testCtx(t)
			before := mountAt(t, mnt)
			k := newKnob(t, "mount-options", Settings{"options": u.options})
			w := spec(filepath.Join(mnt, "data")) // not made yet: the mount holding it counts

			plan, err := k.Plan(ctx, Env{Root: true}, w)
			if err != nil {
				t.Fatalf("Plan: %v", err)
			}
			if want := "mount -o remount," + u.options + " " + mnt; plan.Do[0] != want {
				t.Errorf("Do = %q, want %q", plan.Do, want)
			}
			if now := mountAt(t, mnt); stateOf(now) != stateOf(before) {
				t.Fatalf("Plan changed the options to %s", stateOf(now))
			}

			got, c, revert, err := k.Apply(ctx, Env{Root: true}, w)
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			t.Cleanup(func() { revert(ctx) })
			if got != w {
				t.Errorf("Apply changed the spec: %+v", got)
			}
			after := mountAt(t, mnt)
			if after.Opts != u.opts || u.super != "" && !strings.Contains(","+after.SuperOpts+",", ","+u.super+",") {
				t.Errorf("after Apply: %s, want %s and %s among %s", stateOf(after), u.opts, u.super, after.SuperOpts)
			}
			if !strings.Contains(c.After, after.Opts) || !strings.Contains(c.Before, before.Opts) {
				t.Errorf("Before %q / After %q do not show the options", c.Before, c.After)
			}
			// Reverts run on Ctrl-C, when the step's context is cancelled.
			cancelled, cancel := context.WithCancel(ctx)
			cancel()
			if err := revert(cancelled); err != nil {
				t.Fatalf("revert: %v", err)
			}
			if now := mountAt(t, mnt); !stateOf(now).equal(stateOf(before)) {
				t.Errorf("after revert: %s, want %s back (undo was %q)", stateOf(now), stateOf(before), c.Undo)
			}
			if err := revert(ctx); err != nil {
				t.Errorf("second revert: %v", err)
			}
		})
	}
}

func TestMountOptionsRefused(t *testing.T) {
	_, mnt := testutil.LoopExt4(t, 64<<20)
	ctx := testCtx(t)
	before := mountAt(t, mnt)
	// ext4 refuses an option it does not know: mount fails, and nothing may
	// be left changed, not even the noatime before it.
	_, _, revert, err := newKnob(t, "mount-options", Settings{"options": "noatime,perfbisect_bogus"}).Apply(ctx, Env{Root: true}, spec(mnt))
	wantErr(t, err, "mount -o remount,noatime,perfbisect_bogus "+mnt+" failed (exit status 32)")
	if revert != nil {
		t.Errorf("a failed Apply returned a revert")
	}
	if now := mountAt(t, mnt); !stateOf(now).equal(stateOf(before)) {
		t.Errorf("a refused remount left %s, want %s", stateOf(now), stateOf(before))
	}

	// An option whose default perfbisect does not know cannot be undone.
	_, err = newKnob(t, "mount-options", Settings{"options": "stripe=4"}).Plan(ctx, Env{Root: true}, spec(mnt))
	wantUnavailable(t, err, "stripe=4 could not be put back on ext4 "+mnt)
	_, err = newKnob(t, "mount-options", Settings{"options": "data=journal"}).Plan(ctx, Env{Root: true}, spec(mnt))
	wantUnavailable(t, err, "data=journal could not be put back")

	_, err = newKnob(t, "mount-options", Settings{"options": "noatime"}).Plan(ctx, Env{}, spec(mnt))
	wantUnavailable(t, err, "remounting "+mnt+" needs root")
}

func TestMountOptionsRoot(t *testing.T) {
	ctx := testCtx(t)
	ms, err := sysinfo.Mounts()
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := sysinfo.MountOf(ms, "/usr/bin"); m.Point != "/" {
		t.Skipf("/usr/bin is on %s, not on /", m.Point)
	}
	_, err = newKnob(t, "mount-options", Settings{"options": "noatime"}).Plan(ctx, Env{Root: true}, spec("/usr/bin"))
	wantUnavailable(t, err, `remounting / is too risky by default (set allow-root: "true"`)
	_, _, _, err = newKnob(t, "mount-options", Settings{"options": "noatime"}).Apply(ctx, Env{Root: true}, spec("/usr/bin"))
	wantUnavailable(t, err, "remounting / is too risky")

	// Allowed, it plans (but this test never remounts /).
	plan, err := newKnob(t, "mount-options", Settings{"options": "noatime", "allow-root": "true"}).Plan(ctx, Env{Root: true}, spec("/usr/bin"))
	if _, lookErr := exec.LookPath("mount"); lookErr == nil && err != nil {
		t.Fatalf("Plan with allow-root: %v", err)
	}
	if plan.Do[0] != "mount -o remount,noatime /" {
		t.Errorf("Do = %q", plan.Do)
	}
}

func TestMountOptionsRestore(t *testing.T) {
	const keep = "remount,rw,suid,dev,exec,atime,relatime,diratime"
	uu := map[string]struct {
		opts            string // the knob's options
		before, now     mountState
		fstype, restore string
		unknown         string
	}{
		"noatime": {opts: "noatime",
			before: mountState{"rw,relatime", "rw"}, now: mountState{"rw,noatime", "rw"},
			fstype: "ext4", restore: keep},
		"per-mount flags": {opts: "noatime",
			before: mountState{"ro,nosuid,nodev,noexec,noatime,nodiratime", "ro"}, now: mountState{"rw", "rw"},
			fstype: "ext4", restore: "remount,ro,nosuid,nodev,noexec,noatime,nodiratime"},
		"strictatime": {opts: "noatime",
			before: mountState{"rw", "rw"}, now: mountState{"rw,noatime", "rw"},
			fstype: "ext4", restore: "remount,rw,suid,dev,exec,strictatime,diratime"},
		"nosymfollow": {opts: "nosymfollow",
			before: mountState{"rw,relatime", "rw"}, now: mountState{"rw,relatime,nosymfollow", "rw"},
			fstype: "ext4", restore: keep + ",symfollow"},
		"defaults": {opts: "nobarrier,commit=60",
			before: mountState{"rw,relatime", "rw"}, now: mountState{"rw,relatime", "rw,nobarrier,commit=60"},
			fstype: "ext4", restore: keep + ",barrier,commit=0"},
		"values shown before": {opts: "commit=60,nodelalloc",
			before: mountState{"rw,relatime", "rw,commit=30,nodelalloc"}, now: mountState{"rw,relatime", "rw,commit=60"},
			fstype: "ext4", restore: keep + ",commit=30,nodelalloc"},
		"flags": {opts: "discard,sync,lazytime",
			before: mountState{"rw,relatime", "rw"}, now: mountState{"rw,relatime", "rw,sync,lazytime,discard"},
			fstype: "ext4", restore: keep + ",async,nolazytime,nodiscard"},
		"unchanged": {opts: "barrier",
			before: mountState{"rw,relatime", "rw,errors=remount-ro"}, now: mountState{"rw,relatime", "rw,errors=remount-ro"},
			fstype: "ext4", restore: keep},
		"tmpfs size": {opts: "size=1g",
			before: mountState{"rw,relatime", "rw,size=4096k,mode=700"}, now: mountState{"rw,relatime", "rw,size=1048576k,mode=700"},
			fstype: "tmpfs", restore: keep + ",size=4096k"},
		"unknown default": {opts: "stripe=4",
			before: mountState{"rw,relatime", "rw"}, now: mountState{"rw,relatime", "rw,stripe=4"},
			fstype: "ext4", restore: keep, unknown: "stripe=4"},
		"xfs has no known defaults": {opts: "logbsize=256k",
			before: mountState{"rw,relatime", "rw,attr2"}, now: mountState{"rw,relatime", "rw,attr2,logbsize=256k"},
			fstype: "xfs", restore: keep, unknown: "logbsize=256k"},
		"bind": {opts: "bind,ro",
			before: mountState{"rw,relatime", "rw"}, now: mountState{"ro,relatime", "rw"},
			fstype: "ext4", restore: "remount,bind,rw,suid,dev,exec,atime,relatime,diratime"},
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) {
			k := newKnob(t, "mount-options", Settings{"options": u.opts}).(*mountOptions)
			restore, unknown := k.restore(u.before, u.now, u.fstype)
			if restore != u.restore || strings.Join(unknown, ",") != u.unknown {
				t.Errorf("restore = %q, unknown %q; want %q, %q", restore, unknown, u.restore, u.unknown)
			}
		})
	}
}

func TestMountOptionsPredict(t *testing.T) {
	k := newKnob(t, "mount-options", Settings{"options": "noatime,barrier=0,commit=60"}).(*mountOptions)
	before := mountState{"rw,nosuid,relatime", "rw,commit=30"}
	after := k.predict(before)
	if after.opts != "rw,nosuid,noatime" || after.super != "rw,barrier=0,commit=60" {
		t.Errorf("predict = %+v", after)
	}
	restore, unknown := k.restore(before, after, "ext4")
	if restore != "remount,rw,nosuid,dev,exec,atime,relatime,diratime,barrier,commit=30" || unknown != nil {
		t.Errorf("restore = %q, %q", restore, unknown)
	}
}

// A bind mount of the root filesystem elsewhere is the root filesystem too.
func TestMountOptionsRootBind(t *testing.T) {
	testutil.RequireRoot(t)
	ctx := testCtx(t)
	ms, err := sysinfo.Mounts()
	if err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	if m, _ := sysinfo.MountOf(ms, src); m.Point != "/" {
		testutil.Missing(t, fmt.Sprintf("%s is on %s, not on /", src, m.Point))
	}
	bind := t.TempDir()
	testutil.Run(t, "mount", "--bind", src, bind)
	t.Cleanup(func() { testutil.Undo(t, "umount", bind) })

	_, err = newKnob(t, "mount-options", Settings{"options": "noatime"}).Plan(ctx, Env{Root: true}, spec(bind))
	wantUnavailable(t, err, "is on the root filesystem /")
	// A bind remount changes that mount alone, so it is allowed.
	if _, err := newKnob(t, "mount-options", Settings{"options": "bind,noatime"}).Plan(ctx, Env{Root: true}, spec(bind)); err != nil {
		t.Errorf("Plan of a bind remount: %v", err)
	}
}
