package lab

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/perfbisect/perfbisect/probe/sysinfo"
)

// TestSetImage switches a real lab's loop device to the previous image and
// back: the scheduler and read-ahead the image names are in the kernel, and
// the state says which image is in force.
func TestSetImage(t *testing.T) {
	s := upLab(t, UpOptions{})
	q := filepath.Join("/sys/block", filepath.Base(s.Loop), "queue")
	wasSched, _, err := sysinfo.ReadScheduler(q)
	if err != nil {
		t.Fatal(err)
	}
	wasRA, err := sysinfo.ReadAhead(q)
	if err != nil {
		t.Fatal(err)
	}
	prev := Images["previous"]
	changes := s.ImageChanges("previous")
	if len(changes) != 2 || changes[0] != "echo "+prev.Scheduler+" > "+q+"/scheduler (now "+wasSched+")" ||
		changes[1] != "echo "+prev.ReadAheadKB+" > "+q+"/read_ahead_kb (now "+wasRA+")" {
		t.Errorf("ImageChanges(previous) = %q", changes)
	}
	if s.ImageChanges("nope") != nil {
		t.Error("ImageChanges of an unknown image is not nil")
	}

	after, revert, err := s.SetImage("previous")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(after, "scheduler mq-deadline, read-ahead 4096 KiB (emulated)") {
		t.Errorf("SetImage said %q", after)
	}
	if cur, _, _ := sysinfo.ReadScheduler(q); cur != prev.Scheduler {
		t.Errorf("scheduler %s, want %s", cur, prev.Scheduler)
	}
	if ra, _ := sysinfo.ReadAhead(q); ra != prev.ReadAheadKB {
		t.Errorf("read-ahead %s, want %s", ra, prev.ReadAheadKB)
	}
	if st, err := Load(); err != nil || st.ImageName() != "previous" {
		t.Errorf("saved image %q (%v), want previous", st.ImageName(), err)
	}

	if err := revert(); err != nil {
		t.Fatal(err)
	}
	if cur, _, _ := sysinfo.ReadScheduler(q); cur != wasSched {
		t.Errorf("scheduler %s after revert, want %s", cur, wasSched)
	}
	if ra, _ := sysinfo.ReadAhead(q); ra != wasRA {
		t.Errorf("read-ahead %s after revert, want %s", ra, wasRA)
	}
	if st, _ := Load(); st.ImageName() != DefaultImage {
		t.Errorf("saved image %q after revert, want %s", st.ImageName(), DefaultImage)
	}
	if _, _, err := s.SetImage("nope"); err == nil || !strings.Contains(err.Error(), "images: current, previous") {
		t.Errorf("SetImage(nope) = %v", err)
	}
}

// TestModifyVolume: gp2 to gp3 on the lab, and back with the credits it had.
func TestModifyVolume(t *testing.T) {
	s := upLab(t, UpOptions{Credits: 1000})
	if err := s.CheckVolume("io1", 0, 0); err == nil {
		t.Error("CheckVolume(io1 without IOPS) is nil")
	}
	if err := s.CheckVolume("gp3", 0, 0); err != nil {
		t.Errorf("CheckVolume(gp3) = %v", err)
	}
	if _, err := s.ModifyVolume("st1", 0, 0); err == nil {
		t.Error("ModifyVolume(st1) did not fail")
	}
	revert, err := s.ModifyVolume("gp3", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Describe(); got != "gp3 1 GiB (3000 IOPS, 125 MiB/s)" {
		t.Errorf("Describe() = %q", got)
	}
	wantThrottle(t, s, 3000, 125<<20)
	if err := revert(); err != nil {
		t.Fatal(err)
	}
	if got := s.Describe(); !strings.HasPrefix(got, "gp2 1 GiB (baseline 100 IOPS, burst 3000); ") || !strings.HasSuffix(got, "of 5400000 burst credits") {
		t.Errorf("Describe() after revert = %q", got)
	}
	if s.Credits < 999 || s.Credits > 1001 {
		t.Errorf("credits %v after revert, want the 1000 it had", s.Credits)
	}
}

// TestEnterIfOn: a process whose data is on the lab goes into its cgroup;
// one whose data is elsewhere does not.
func TestEnterIfOn(t *testing.T) {
	s := upLab(t, UpOptions{})
	sleep := exec.Command("sleep", "60")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sleep.Process.Kill(); sleep.Wait() })
	pid := sleep.Process.Pid
	procs := func() []string {
		b, err := os.ReadFile(filepath.Join(s.Cgroup, "cgroup.procs"))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Fields(string(b))
	}
	for _, dir := range []string{"", t.TempDir()} {
		if on, err := EnterIfOn(dir, pid); on || err != nil {
			t.Errorf("EnterIfOn(%q) = %v, %v; want not on the lab", dir, on, err)
		}
	}
	if len(procs()) != 0 {
		t.Fatalf("the lab cgroup holds %v before any process on the lab", procs())
	}
	if on, err := EnterIfOn(filepath.Join(s.DataDir, "probe"), pid); !on || err != nil {
		t.Errorf("EnterIfOn(data dir) = %v, %v; want entered", on, err)
	}
	if got := procs(); len(got) != 1 || got[0] != strconv.Itoa(pid) {
		t.Errorf("the lab cgroup holds %v, want %d", got, pid)
	}
}
