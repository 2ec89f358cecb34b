package lab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/proc"
	"github.com/perfbisect/perfbisect/internal/testutil"
	"github.com/perfbisect/perfbisect/probe/sysinfo"
)

// upLab brings a lab up with its state file and directory in temporary
// directories (backing file 1 GiB, sparse) and takes it down at the end of
// the test, checking that nothing is left.
func upLab(t *testing.T, o UpOptions) *State {
	t.Helper()
	testutil.RequireRoot(t)
	for _, tool := range []string{"losetup", "mkfs.ext4", "mount", "umount", "dd", "sh"} {
		testutil.RequireTool(t, tool)
	}
	old := StateFile
	StateFile = filepath.Join(t.TempDir(), "run", "lab.json")
	t.Cleanup(func() { StateFile = old })
	if o.Dir == "" {
		o.Dir = filepath.Join(t.TempDir(), "lab")
	}
	if o.SizeGiB == 0 {
		o.SizeGiB = 1
	}
	s, err := Up(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := Down(context.Background()); err != nil {
			t.Errorf("Down: %v", err)
		}
		assertGone(t, s)
	})
	return s
}

// assertGone checks that nothing of the lab s is left on the machine.
func assertGone(t *testing.T, s *State) {
	t.Helper()
	if out := testutil.Run(t, "losetup", "-a"); strings.Contains(out, s.Backing) {
		t.Errorf("a loop device is still attached to %s:\n%s", s.Backing, out)
	}
	if mounted, err := sysinfo.IsMountPoint(s.Mount); err != nil || mounted {
		t.Errorf("%s still mounted (%v)", s.Mount, err)
	}
	for _, p := range []string{s.Cgroup, s.Backing, s.Mount, StateFile, StateFile + ".lock"} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is still there (%v)", p, err)
		}
	}
}

// throttleFile reads one of the lab cgroup's v1 throttle files (or io.max).
func throttleFile(t *testing.T, s *State, name string) string {
	t.Helper()
	if s.CgroupVersion == 2 {
		name = "io.max"
	}
	b, err := os.ReadFile(filepath.Join(s.Cgroup, name))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func wantThrottle(t *testing.T, s *State, iops int, bps int64) {
	t.Helper()
	if s.CgroupVersion == 2 {
		v := func(n int64) string {
			if n == 0 {
				return "max"
			}
			return fmt.Sprint(n)
		}
		got := throttleFile(t, s, "io.max")
		if !strings.Contains(got, fmt.Sprintf("%s ", s.Dev)) || !strings.Contains(got, "wiops="+v(int64(iops))) || !strings.Contains(got, "wbps="+v(bps)) {
			t.Errorf("io.max = %q; want wiops=%s wbps=%s", got, v(int64(iops)), v(bps))
		}
		return
	}
	line := func(n int64) string {
		if n == 0 {
			return ""
		}
		return fmt.Sprintf("%s %d", s.Dev, n)
	}
	if got := throttleFile(t, s, "blkio.throttle.write_iops_device"); got != line(int64(iops)) {
		t.Errorf("write_iops_device = %q; want %q", got, line(int64(iops)))
	}
	if got := throttleFile(t, s, "blkio.throttle.write_bps_device"); got != line(bps) {
		t.Errorf("write_bps_device = %q; want %q", got, line(bps))
	}
}

// inCgroup runs a command as a process of the lab cgroup.
func inCgroup(t *testing.T, s *State, args ...string) {
	t.Helper()
	testutil.Run(t, "sh", append([]string{"-c", `echo $$ > "$0"/cgroup.procs && exec "$@"`, s.Cgroup}, args...)...)
}

func TestUpDown(t *testing.T) {
	s := upLab(t, UpOptions{})
	if s.Model.String() != "gp2 1 GiB (baseline 100 IOPS, burst 3000)" || s.Credits != MaxCredits || s.Image != "current" {
		t.Errorf("Up() = %+v", s)
	}
	if !strings.HasPrefix(s.Loop, "/dev/loop") || s.Dev == "" || s.DataDir != filepath.Join(s.Mount, "data") || s.CgroupVersion == 0 {
		t.Errorf("Up() = %+v", s)
	}
	t.Logf("lab: %+v", *s)
	again, err := Up(context.Background(), UpOptions{Dir: filepath.Dir(s.Backing), SizeGiB: 1})
	if err != nil {
		t.Fatal(err)
	}
	if again.Loop != s.Loop || again.Cgroup != s.Cgroup || again.Mount != s.Mount {
		t.Errorf("second Up made another lab: %+v, first %+v", again, s)
	}
	if out := testutil.Run(t, "losetup", "-j", s.Backing); strings.Count(out, "\n") != 0 {
		t.Errorf("after two Ups, more than one loop device: %s", out)
	}
	loaded, err := Load()
	if err != nil || loaded.Loop != s.Loop || loaded.Model != s.Model {
		t.Errorf("Load() = %+v, %v", loaded, err)
	}
	if !s.Contains(s.DataDir) || !s.Contains(filepath.Join(s.DataDir, "not-yet")) || s.Contains(t.TempDir()) || s.Contains("/") {
		t.Error("Contains is wrong")
	}
	if err := os.WriteFile(filepath.Join(s.DataDir, "x"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Down(context.Background()); err != nil {
		t.Fatal(err)
	}
	assertGone(t, s)
	if err := Down(context.Background()); err != nil {
		t.Errorf("second Down: %v", err)
	}
	if _, err := Load(); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load after Down: %v; want ErrNotExist", err)
	}
	if _, err := Update(func(*State) error { return nil }); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Update after Down: %v; want ErrNotExist", err)
	}
}

func TestUpBadModel(t *testing.T) {
	testutil.RequireRoot(t)
	old := StateFile
	StateFile = filepath.Join(t.TempDir(), "lab.json")
	defer func() { StateFile = old }()
	dir := filepath.Join(t.TempDir(), "lab")
	if _, err := Up(context.Background(), UpOptions{Dir: dir, SizeGiB: 1, Model: Model{Type: "io1"}}); err == nil || !strings.Contains(err.Error(), "io1") {
		t.Errorf("Up with io1 without IOPS: %v", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed Up left %s", dir)
	}
}

func TestApply(t *testing.T) {
	s := upLab(t, UpOptions{Drained: true})
	wantThrottle(t, s, 100, 0)
	if err := s.SetCredits(MaxCredits); err != nil {
		t.Fatal(err)
	}
	wantThrottle(t, s, 3000, 0)
	gp3, _ := NewModel("gp3", 1, 0, 0)
	if err := s.SetModel(gp3); err != nil {
		t.Fatal(err)
	}
	wantThrottle(t, s, 3000, 125<<20)
	if err := s.SetModel(Model{Type: "io1", SizeGiB: 100, IOPS: 5000}); err != nil {
		t.Fatal(err)
	}
	wantThrottle(t, s, 5000, 0)
	if err := s.SetModel(Model{Type: "io1", SizeGiB: 100}); err == nil {
		t.Error("SetModel(io1 without IOPS) did not fail")
	}
	if err := s.SetModel(Model{Type: "gp2", SizeGiB: 30}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetCredits(0); err != nil {
		t.Fatal(err)
	}
	wantThrottle(t, s, 100, 0)
	if loaded, _ := Load(); loaded.Model.String() != "gp2 30 GiB (baseline 100 IOPS, burst 3000)" || loaded.Credits != 0 {
		t.Errorf("saved state: %+v", loaded)
	}
}

// TestTickDeterministic feeds the controller's accounting made-up write
// counts and a fake clock (advance, the seam under Tick).
func TestTickDeterministic(t *testing.T) {
	s := upLab(t, UpOptions{Credits: 10000})
	t0 := s.CreditsAt
	at := func(sec float64) time.Time { return t0.Add(time.Duration(sec * float64(time.Second))) }
	total := s.LastIOs
	step := func(sec float64, ios uint64, credits float64, changed bool, iops int) {
		t.Helper()
		total += ios
		c, err := s.advance(at(sec), total)
		if err != nil {
			t.Fatal(err)
		}
		if c != changed || s.Credits != credits {
			t.Errorf("at %vs after %d I/Os: changed %v, credits %v; want %v, %v", sec, ios, c, s.Credits, changed, credits)
		}
		wantThrottle(t, s, iops, 0)
	}
	// A workload doing 3000 writes a second on a 100 IOPS baseline spends
	// 2900 credits a second.
	step(1, 3000, 7100, false, 3000)
	step(2, 3000, 4200, false, 3000)
	step(3, 3000, 1300, true, 100) // less than a second of burst left: baseline
	step(4, 100, 1300, false, 100) // at baseline nothing is earned
	step(5, 5000, 0, false, 100)   // clamped at 0
	step(35, 0, 3000, true, 3000)  // 30 idle seconds earn 3000: burst again
	step(1e6, 0, MaxCredits, false, 3000)
	s.LastIOs, total = 1<<40, 0 // a cgroup made anew: its count starts over
	step(1e6+1, 50, MaxCredits, false, 3000)
	// gp3 keeps no credits; only the count and the clock move on.
	s.Model, _ = NewModel("gp3", 1, 0, 0)
	s.Credits = 0
	if c, err := s.advance(at(2e6), total+1000); c || err != nil || s.Credits != 0 || s.LastIOs != total+1000 {
		t.Errorf("gp3 advance: %v %v %+v", c, err, s)
	}
}

// TestTickScaled: a lab at a quarter speed throttles to a quarter of the
// model's IOPS and throughput, and its I/Os count four times, so the bucket
// drains at EBS's pace: 750 writes a second at burst spend what 3000 do.
func TestTickScaled(t *testing.T) {
	s := upLab(t, UpOptions{Credits: 10000, Scale: 0.25})
	wantThrottle(t, s, 750, 0)
	t0, total := s.CreditsAt, s.LastIOs
	total += 750
	if c, err := s.advance(t0.Add(time.Second), total); c || err != nil || s.Credits != 7100 {
		t.Errorf("after a second of 750 I/Os at 0.25x: changed %v, %v, credits %v; want 7100 as for 3000 I/Os at 1x", c, err, s.Credits)
	}
	wantThrottle(t, s, 750, 0)
	total += 2 * 750
	if c, err := s.advance(t0.Add(3*time.Second), total); !c || err != nil || s.Credits != 1300 {
		t.Errorf("two more seconds: changed %v, %v, credits %v; want the baseline with 1300", c, err, s.Credits)
	}
	wantThrottle(t, s, 25, 0)
	if err := s.SetModel(Model{Type: "gp3", SizeGiB: s.Model.SizeGiB}); err != nil {
		t.Fatal(err)
	}
	if iops, bps := s.Limit(); iops != 750 || bps != 125*MiB/4 {
		t.Errorf("gp3 at 0.25x: limit %d IOPS %d B/s, want 750 and %d", iops, bps, 125*MiB/4)
	}
	for _, k := range []float64{-1, 1.5} {
		if _, err := Up(context.Background(), UpOptions{Dir: t.TempDir(), Scale: k}); err == nil || !strings.Contains(err.Error(), "scale") {
			t.Errorf("Up at scale %v: %v, want an error naming the scale", k, err)
		}
	}
}

// TestTickReal spends credits with real writes in the lab cgroup.
func TestTickReal(t *testing.T) {
	s := upLab(t, UpOptions{Credits: 3000})
	wantThrottle(t, s, 3000, 0)
	inCgroup(t, s, "dd", "if=/dev/zero", "of="+filepath.Join(s.DataDir, "f"), "bs=4k", "count=300", "oflag=dsync", "status=none")
	changed, err := Tick(s, s.CreditsAt) // no time passed: no credits earned
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("300 O_DSYNC 4 KiB writes: %d write I/Os counted, %v credits left", s.LastIOs, s.Credits)
	if !changed || s.LastIOs < 300 || s.Credits > 2700 {
		t.Errorf("Tick after 300 writes: changed %v, %d I/Os, %v credits", changed, s.LastIOs, s.Credits)
	}
	wantThrottle(t, s, 100, 0)
}

// TestRunController lets the controller drain a burst: the throttle must
// fall to the baseline by itself, and the controller clears its PID on exit.
func TestRunController(t *testing.T) {
	s := upLab(t, UpOptions{Credits: 3200})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- RunController(ctx, 100*time.Millisecond) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("RunController: %v", err)
		}
		if st, _ := Load(); st == nil || st.ControllerPID != 0 {
			t.Errorf("controller still recorded: %+v", st)
		}
	}()
	inCgroup(t, s, "dd", "if=/dev/zero", "of="+filepath.Join(s.DataDir, "f"), "bs=4k", "count=600", "oflag=dsync", "status=none")
	deadline := time.Now().Add(5 * time.Second)
	for {
		st, err := Load()
		if err != nil {
			t.Fatal(err)
		}
		if iops, _ := st.Limit(); iops == 100 {
			if st.ControllerPID != os.Getpid() {
				t.Errorf("ControllerPID = %d; want %d", st.ControllerPID, os.Getpid())
			}
			wantThrottle(t, st, 100, 0)
			t.Logf("controller switched to baseline: %v credits, %d I/Os", st.Credits, st.LastIOs)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the controller did not switch to baseline: %+v", st)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestCheck measures the emulated volumes with fdatasync'd writes.
func TestCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("measures for seconds")
	}
	s := upLab(t, UpOptions{Drained: true})
	d := 5 * time.Second
	measure := func(what string) float64 {
		t.Helper()
		r, err := s.check(context.Background(), d)
		if err != nil {
			t.Fatal(err)
		}
		iops, _ := s.Limit()
		if strings.HasPrefix(what, "unthrottled") {
			iops = 0
		}
		t.Logf("%s, %s: limit %d IOPS (0: none), measured %.0f O_DSYNC writes/s (%d writes, %d write I/Os: %.2f I/Os per write, %v)",
			what, s.Model, iops, r.IOPS(), r.Writes, r.IOs, float64(r.IOs)/float64(max(r.Writes, 1)), r.Elapsed.Round(time.Millisecond))
		return r.IOPS()
	}
	for _, size := range []int{1, 30} {
		if err := s.SetModel(Model{Type: "gp2", SizeGiB: size}); err != nil {
			t.Fatal(err)
		}
		if got := measure(fmt.Sprintf("drained gp2 %d GiB", size)); got < 50 || got > 200 {
			t.Errorf("drained gp2 (100 IOPS) measured %.0f IOPS: not within a factor 2", got)
		}
	}
	if err := s.SetCredits(MaxCredits); err != nil {
		t.Fatal(err)
	}
	if got := measure("gp2 with credits (burst)"); got > 6000 || got < 150 {
		t.Errorf("gp2 burst (3000 IOPS) measured %.0f IOPS", got)
	}
	if err := s.SetModel(Model{Type: "gp3", SizeGiB: 30}); err != nil {
		t.Fatal(err)
	}
	if got := measure("gp3"); got > 6000 || got < 150 {
		t.Errorf("gp3 (3000 IOPS) measured %.0f IOPS", got)
	}
	// The host's own ceiling, for reading the numbers above: no throttle.
	if err := s.throttle(0, 0); err != nil {
		t.Fatal(err)
	}
	measure("unthrottled loop device (host ceiling, not a model)")
	got, err := s.Check(context.Background(), time.Second)
	if err != nil || got <= 0 {
		t.Errorf("Check() = %v, %v", got, err)
	}
	// A cancelled check (Ctrl-C in lab status) kills dd at once.
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	begin := time.Now()
	if _, err := s.Check(ctx, time.Minute); !errors.Is(err, context.DeadlineExceeded) || time.Since(begin) > 5*time.Second {
		t.Errorf("Check cancelled after 200ms: %v after %v, want its context's error at once", err, time.Since(begin))
	}
	if ents := testutil.Entries(t, s.DataDir); len(ents) != 0 {
		t.Errorf("Check left %v", ents)
	}
}

// TestDownAfterCrash takes down a lab whose owner died: the state file is
// there, the recorded controller is dead (or alive and must be stopped),
// a process is left in the cgroup.
func TestDownAfterCrash(t *testing.T) {
	s := upLab(t, UpOptions{})
	dead := exec.Command("sleep", "60")
	if err := dead.Start(); err != nil {
		t.Fatal(err)
	}
	dead.Process.Kill()
	dead.Wait()
	if _, err := Update(func(st *State) error { st.ControllerPID = dead.Process.Pid; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := Down(context.Background()); err != nil {
		t.Fatal(err)
	}
	assertGone(t, s)

	// Again, with a live controller and a process left in the cgroup.
	s, err := Up(context.Background(), UpOptions{Dir: filepath.Dir(s.Backing), SizeGiB: 1})
	if err != nil {
		t.Fatal(err)
	}
	ctl := exec.Command("sleep", "60")
	if err := ctl.Start(); err != nil {
		t.Fatal(err)
	}
	defer ctl.Process.Kill()
	start, err := proc.StartTime(ctl.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	left := exec.Command("sleep", "60")
	if err := left.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { left.Process.Kill(); left.Wait() }()
	if err := s.Enter(left.Process.Pid); err != nil {
		t.Fatal(err)
	}
	if _, err := Update(func(st *State) error { st.ControllerPID, st.ControllerStart = ctl.Process.Pid, start; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := Down(context.Background()); err != nil {
		t.Fatal(err)
	}
	if proc.Alive(ctl.Process.Pid) {
		t.Error("Down did not stop the controller")
	}
	ctl.Wait()
	assertGone(t, s)
}
