package knob

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfbisect/perfbisect/internal/testutil"
	"github.com/perfbisect/perfbisect/probe/sysinfo"
)

// otherScheduler is the request queue of dev, the scheduler it uses and
// another one it offers to switch to.
func otherScheduler(t *testing.T, dev string) (queue, was, to string) {
	return testutil.OtherScheduler(t, dev)
}

func TestScheduler(t *testing.T) {
	dev, mnt := testutil.LoopExt4(t, 64<<20)
	ctx := testCtx(t)
	queue, was, to := otherScheduler(t, dev)
	file := filepath.Join(queue, "scheduler")
	t.Cleanup(func() {
		if now, _, _ := sysinfo.ReadScheduler(queue); now != was {
			t.Errorf("%s left at %s: putting back %s", file, now, was)
			sysinfo.SetScheduler(queue, was)
		}
	})

	k := newKnob(t, "scheduler", Settings{"value": to})
	w := spec(filepath.Join(mnt, "data", "deeper")) // not made yet: its parent's disk counts
	plan, err := k.Plan(ctx, Env{Root: true}, w)
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	if want := "echo " + to + " > " + file; !contains(plan.Do, want) || !contains(plan.Undo, "echo "+was+" > "+file) {
		t.Errorf("Plan = %q / %q, want %q and back", plan.Do, plan.Undo, want)
	}
	if !strings.HasPrefix(plan.Before, was+" ("+filepath.Base(dev)) {
		t.Errorf("Before = %q, want %s on %s", plan.Before, was, dev)
	}
	if now, _, _ := sysinfo.ReadScheduler(queue); now != was {
		t.Fatalf("Plan changed the scheduler to %s", now)
	}

	got, c, revert, err := k.Apply(ctx, Env{Root: true}, w)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if got != w {
		t.Errorf("Apply changed the spec: %+v", got)
	}
	if now, _, _ := sysinfo.ReadScheduler(queue); now != to {
		t.Errorf("%s shows %s after Apply, want %s", file, now, to)
	}
	if !strings.HasPrefix(c.After, to) {
		t.Errorf("After = %q, want %s", c.After, to)
	}
	if err := revert(ctx); err != nil {
		t.Fatalf("revert: %v", err)
	}
	if now, _, _ := sysinfo.ReadScheduler(queue); now != was {
		t.Errorf("%s shows %s after revert, want %s", file, now, was)
	}
	if err := revert(ctx); err != nil {
		t.Errorf("second revert: %v", err)
	}
}

func TestSchedulerUnavailable(t *testing.T) {
	dev, mnt := testutil.LoopExt4(t, 64<<20)
	ctx := testCtx(t)
	_, offered, err := sysinfo.ReadScheduler(filepath.Join("/sys/block", filepath.Base(dev), "queue"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = newKnob(t, "scheduler", Settings{"value": "cfq"}).Plan(ctx, Env{Root: true}, spec(mnt))
	wantUnavailable(t, err, filepath.Base(dev)+" offers "+strings.Join(offered, ", ")+", not cfq")

	tmp := testutil.Tmpfs(t, "4m")
	_, err = newKnob(t, "scheduler", Settings{"value": "none"}).Plan(ctx, Env{Root: true}, spec(tmp))
	wantUnavailable(t, err, "is on tmpfs (tmpfs), which is not a block device")
}

func TestSchedulerNotRoot(t *testing.T) {
	dev, mnt := testutil.LoopExt4(t, 64<<20)
	_, was, to := otherScheduler(t, dev)
	_, _, _, err := newKnob(t, "scheduler", Settings{"value": to}).Apply(testCtx(t), Env{}, spec(mnt))
	wantUnavailable(t, err, "needs root")

	// Asking for the scheduler already in use changes nothing, root or not.
	_, c, revert, err := newKnob(t, "scheduler", Settings{"value": was}).Apply(testCtx(t), Env{}, spec(mnt))
	if err != nil || !strings.HasPrefix(c.Do[0], "nothing") {
		t.Fatalf("Apply(%s) = %q, %v; want nothing to do", was, c.Do, err)
	}
	if err := revert(testCtx(t)); err != nil {
		t.Errorf("revert: %v", err)
	}
}
