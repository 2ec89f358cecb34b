package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfbisect/perfbisect/internal/testutil/hosttest"
	"github.com/perfbisect/perfbisect/probe/lab"
	"github.com/perfbisect/perfbisect/session"
)

// TestLabStory runs the seeds' story on the lab with the real binary, as
// make demo does with longer steps: the reference is the emulated gp2 volume
// with full burst credits; then its credits are gone, and the walk must find
// image persists, the bare host unavailable, tmpfs gone, fsync off gone, gp3
// gone, and conclude on the gp2 volume. Then lab down must leave nothing.
// The lab runs at a quarter speed (gp3 at 750 IOPS, not 3000), so that the
// machine's own disk, shared and noisy in CI, is never what limits a step:
// at full speed gp3's 1,500 fdatasync'd writes a second sit within 2x of
// what this kind of disk sustains, and a slow minute of it reads as gp3
// "still slower than the reference".
func TestLabStory(t *testing.T) {
	l := upLab(t, "--scale", "0.25")
	sh, dir, backing, st, refFile := l.run, l.dir, l.backing, l.st, l.ref
	data := st.DataDir
	sh("lab", "up", "--yes", "--drained")
	status := sh("lab", "status", "--check", "2s")
	for _, want := range []string{"EMULATION", "gp2 30 GiB", "drained"} {
		if !strings.Contains(status, want) {
			t.Errorf("lab status lacks %q:\n%s", want, status)
		}
	}

	rec := filepath.Join(dir, "story.jsonl")
	walk := sh("run", "--no-tui", "--yes", "--playbook", "ebs-lab", "--dir", data, "--reference", refFile, "--duration", "10s", "--record", rec)
	evs, bad, err := session.ReadLogFile(rec)
	if err != nil || len(bad) > 0 {
		t.Fatalf("log: %v %v", err, bad)
	}
	got := map[string]session.State{}
	var conclusion string
	for _, e := range evs {
		switch d := e.Data.(type) {
		case *session.StepEnd:
			got[e.Step] = d.State
		case *session.SessionEnd:
			conclusion = d.Conclusion
		}
	}
	want := map[string]session.State{
		"reproduce": session.StateRegressed, "image": session.StatePersists, "host": session.StateUnavailable,
		"tmpfs": session.StateGone, "fsync": session.StateGone, "volume-type": session.StateGone,
	}
	for step, w := range want {
		if got[step] != w {
			t.Errorf("step %s: %s, want %s", step, got[step], w)
		}
	}
	if !strings.Contains(conclusion, "gp3") || !strings.Contains(conclusion, "gp2") {
		t.Errorf("conclusion %q, want the gp2 volume fixed by gp3", conclusion)
	}
	if t.Failed() {
		t.Logf("the walk:\n%s", walk)
	}
	// Every knob was put back: the volume is the drained gp2 it was, on the
	// current image, and no revert failed.
	after, err := lab.Load()
	if err != nil {
		t.Fatal(err)
	}
	if after.Model != (lab.Model{Type: "gp2", SizeGiB: 30}) || after.Image != "current" && after.Image != "" {
		t.Errorf("after the walk the lab is %s on image %q, want gp2 30 GiB on the current image", after.Model, after.Image)
	}
	for _, e := range evs {
		if k, ok := e.Data.(*session.KnobEvent); ok && k.Action == session.KnobRevertFailed {
			t.Errorf("step %s: revert of %s failed: %s", e.Step, k.Change.Knob, k.Error)
		}
	}

	// lab up on a lab that is up changes only what it is given, and
	// --credits 0 is a drained bucket.
	sh("lab", "up", "--yes", "--type", "gp3", "--iops", "4000")
	sh("lab", "up", "--yes", "--credits", "0")
	if st, err := lab.Load(); err != nil || st.Model != (lab.Model{Type: "gp3", SizeGiB: 30, IOPS: 4000, ThroughputMiB: 125}) || st.Credits != 0 {
		t.Errorf("after lab up --type gp3 --iops 4000, then --credits 0: %+v (%v), want gp3 30 GiB 4000 IOPS 125 MiB/s, 0 credits", st, err)
	}

	sh("lab", "down", "--yes")
	if _, err := lab.Load(); err == nil {
		t.Error("lab down left its state file")
	}
	if out, _ := exec.Command("losetup", "-j", st.Backing).Output(); len(out) > 0 {
		t.Errorf("loop device left: %s", out)
	}
	if m := hosttest.MountsUnder(t, backing); len(m) > 0 {
		t.Errorf("mounts left: %v", m)
	}
	if _, err := os.Stat(st.Cgroup); err == nil {
		t.Errorf("cgroup %s left", st.Cgroup)
	}
}
