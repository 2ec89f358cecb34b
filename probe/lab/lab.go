// Package lab emulates EBS volumes on one Linux machine, so that the story
// of a storage write regression (a gp2 volume out of burst credits, fixed by
// gp3) can be reproduced and tested without AWS.
//
// It is an emulation, and says so: an ext4 filesystem on a loop device over
// a sparse file, whose write IOPS (and write bytes per second, when the model
// has a throughput) are limited by the kernel's I/O throttling for the
// processes of one cgroup — cgroup v1 blkio.throttle.write_iops_device and
// write_bps_device, or cgroup v2 io.max. Only I/O submitted by processes in
// the lab cgroup is throttled and counted: the kernel's own writeback and
// ext4's journal thread (jbd2) are not, so the lab emulates fdatasync'd and
// O_DSYNC writes (what databases wait on) faithfully, and buffered writes
// left to the kernel's flusher not at all. The loop device sits on the
// host's page cache and disk, so latencies are the host's plus the throttle,
// not EBS's network round trip. gp2's I/O credit bucket is kept by a
// controller (RunController, one Tick a second) that counts the cgroup's
// write I/Os and switches the throttle between burst and baseline. What a
// step changes on EC2 it changes here: the volume's type (ModifyVolume) and
// the machine image, emulated by the loop device's I/O scheduler and
// read-ahead (SetImage).
package lab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/perfbisect/perfbisect/internal/proc"
	"github.com/perfbisect/perfbisect/internal/shell"
	"github.com/perfbisect/perfbisect/probe/sysinfo"
)

// UpOptions say what lab to build.
type UpOptions struct {
	Dir     string  // where the backing file and the mount point live; default /var/lib/perfbisect-lab
	SizeGiB int     // size of the (sparse) backing file and filesystem; default 30
	Model   Model   // the emulated volume; default gp2 of SizeGiB (a zero SizeGiB in it means SizeGiB)
	Credits float64 // gp2 credits to start with; default MaxCredits
	Drained bool    // start with no gp2 credits (the seeds' volume)
	// Scale runs the emulation at this fraction of the model's IOPS and
	// throughput (0 means 1): for a machine whose own disk cannot back the
	// model's limits with room to spare. The ratios between volumes, and
	// the pace at which gp2's credits drain, stay EBS's.
	Scale float64
}

// DefaultDir is where the lab keeps its backing file and mount point.
const DefaultDir = "/var/lib/perfbisect-lab"

const (
	v1Root = "/sys/fs/cgroup/blkio"
	v2Root = "/sys/fs/cgroup"
)

// Up builds the lab (root, Linux): a sparse backing file in o.Dir, a loop
// device over it, an ext4 filesystem mounted at <Dir>/mnt with a data
// directory, a cgroup whose writes to the device are throttled to the
// model's limits, and the state file. It is idempotent: when the state file
// names a loop device, mount and cgroup that are all there, that lab is
// returned as it is (change its model with SetModel). The remains of a lab
// that is partly gone are taken down first. Any failure undoes what Up did.
func Up(ctx context.Context, o UpOptions) (st *State, err error) {
	if runtime.GOOS != "linux" {
		return nil, errors.New("lab: needs Linux (loop devices and cgroup I/O throttling)")
	}
	if os.Geteuid() != 0 {
		return nil, errors.New("lab: needs root (loop device, mount, cgroup)")
	}
	version, root, err := detectCgroup()
	if err != nil {
		return nil, err
	}
	if o.Dir == "" {
		o.Dir = DefaultDir
	}
	if o.Dir, err = filepath.Abs(o.Dir); err != nil {
		return nil, err
	}
	if o.SizeGiB == 0 {
		o.SizeGiB = 30
	}
	if o.SizeGiB < 1 {
		return nil, fmt.Errorf("lab: size %d GiB: must be at least 1", o.SizeGiB)
	}
	m := o.Model
	if m.Type == "" {
		m.Type = "gp2"
	}
	if m.SizeGiB == 0 {
		m.SizeGiB = o.SizeGiB
	}
	if m, err = NewModel(m.Type, m.SizeGiB, m.IOPS, m.ThroughputMiB); err != nil {
		return nil, err
	}
	if o.Scale == 0 {
		o.Scale = 1
	}
	if err := CheckScale(o.Scale); err != nil {
		return nil, err
	}
	credits := float64(MaxCredits)
	if o.Drained {
		credits = 0
	} else if o.Credits != 0 {
		credits = clampCredits(o.Credits)
	}

	if old, err := Load(); err == nil && !old.alive() {
		// Before the lock, which it may be waiting for.
		if err := old.stopController(); err != nil {
			return nil, err
		}
	}
	unlock, err := lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	if old, err := Load(); err == nil {
		if old.alive() {
			return old, nil
		}
		if err := old.teardown(); err != nil {
			return nil, fmt.Errorf("lab: remains of an earlier lab: %v", err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}

	var undo []func()
	defer func() {
		if err != nil {
			for i := len(undo) - 1; i >= 0; i-- {
				undo[i]()
			}
		}
	}()
	if err := os.MkdirAll(o.Dir, 0o711); err != nil {
		return nil, fmt.Errorf("lab: %v", err)
	}
	s := &State{
		Backing:       filepath.Join(o.Dir, "volume.img"),
		Mount:         filepath.Join(o.Dir, "mnt"),
		CgroupVersion: version,
		Model:         m,
		Credits:       credits,
		Image:         DefaultImage,
		Scale:         o.Scale,
	}
	s.DataDir = filepath.Join(s.Mount, "data")
	if loops, _ := loopsOf(ctx, s.Backing); len(loops) > 0 {
		return nil, fmt.Errorf("lab: %s is still attached to %s (left by an earlier lab?); detach it with losetup -d", s.Backing, strings.Join(loops, ", "))
	}
	f, err := os.OpenFile(s.Backing, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lab: backing file: %v", err)
	}
	undo = append(undo, func() { os.Remove(s.Backing) })
	err = f.Truncate(int64(o.SizeGiB) << 30) // sparse: takes no space until written
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("lab: backing file %s of %d GiB: %v", s.Backing, o.SizeGiB, err)
	}
	out, err := run(ctx, "losetup", "--find", "--show", s.Backing)
	if err != nil {
		return nil, err
	}
	s.Loop = strings.TrimSpace(out)
	undo = append(undo, func() { run(context.Background(), "losetup", "-d", s.Loop) })
	dev, err := os.ReadFile(filepath.Join("/sys/block", filepath.Base(s.Loop), "dev"))
	if err != nil {
		return nil, fmt.Errorf("lab: %s: %v", s.Loop, err)
	}
	s.Dev = strings.TrimSpace(string(dev))
	if _, err := run(ctx, "mkfs.ext4", "-q", s.Loop); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(s.Mount, 0o755); err != nil {
		return nil, fmt.Errorf("lab: %v", err)
	}
	undo = append(undo, func() { os.Remove(s.Mount) })
	// noinit_itable: no background zeroing of inode tables by the kernel,
	// which is I/O the throttle does not see and would disturb measurements.
	if _, err := run(ctx, "mount", "-t", "ext4", "-o", "noinit_itable", s.Loop, s.Mount); err != nil {
		return nil, err
	}
	undo = append(undo, func() { run(context.Background(), "umount", s.Mount) })
	if err := os.Mkdir(s.DataDir, 0o777); err != nil {
		return nil, fmt.Errorf("lab: %v", err)
	}
	os.Chmod(s.DataDir, 0o1777) // like /tmp: any user's workload may write there
	s.Cgroup = filepath.Join(root, "perfbisect-lab-"+filepath.Base(s.Loop))
	if err := os.Mkdir(s.Cgroup, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("lab: cgroup: %v", err)
	}
	undo = append(undo, func() { os.Remove(s.Cgroup) })
	s.CreditsAt = time.Now()
	if s.LastIOs, err = s.WriteIOs(); err != nil {
		return nil, err
	}
	if err := s.commit(); err != nil {
		return nil, err
	}
	return s, nil
}

// detectCgroup finds the kernel's I/O throttling: cgroup v1's blkio
// hierarchy, or cgroup v2 with the io controller (enabled for the children
// of the root when it is not yet).
func detectCgroup() (version int, root string, err error) {
	if _, err := os.Stat(filepath.Join(v1Root, "blkio.throttle.write_iops_device")); err == nil {
		return 1, v1Root, nil
	}
	ctrl, err := os.ReadFile(filepath.Join(v2Root, "cgroup.controllers"))
	if err == nil && hasWord(string(ctrl), "io") {
		sub, err := os.ReadFile(filepath.Join(v2Root, "cgroup.subtree_control"))
		if err != nil {
			return 0, "", fmt.Errorf("lab: cgroup v2: %v", err)
		}
		if !hasWord(string(sub), "io") {
			if err := writeFile(filepath.Join(v2Root, "cgroup.subtree_control"), "+io"); err != nil {
				return 0, "", fmt.Errorf("lab: cgroup v2: enable the io controller: %v", err)
			}
		}
		return 2, v2Root, nil
	}
	return 0, "", fmt.Errorf("lab: no kernel I/O throttling: neither cgroup v1 blkio (%s) nor cgroup v2 with the io controller (%s/cgroup.controllers)", v1Root, v2Root)
}

func hasWord(s, w string) bool {
	for _, f := range strings.Fields(s) {
		if f == w {
			return true
		}
	}
	return false
}

// alive says whether everything the state names is still there.
func (s *State) alive() bool {
	if s.Loop == "" || s.Mount == "" || s.Cgroup == "" {
		return false
	}
	b, err := os.ReadFile(filepath.Join("/sys/block", filepath.Base(s.Loop), "loop", "backing_file"))
	if err != nil || strings.TrimSpace(string(b)) != s.Backing {
		return false
	}
	if mounted, err := sysinfo.IsMountPoint(s.Mount); err != nil || !mounted {
		return false
	}
	fi, err := os.Stat(s.Cgroup)
	return err == nil && fi.IsDir()
}

// Down takes the lab down and leaves nothing behind: it stops the gp2
// controller, takes any process left in the cgroup out of it, removes the
// throttle and the cgroup, unmounts, detaches every loop device over the
// backing file, and removes the backing file, the mount point and the state
// file. It is idempotent (a lab that is down is no error) and works after a
// crash. When a step fails the state file stays, so that Down can be run
// again once the cause (say, a shell in the mount point) is gone.
func Down(ctx context.Context) error {
	s, err := Load()
	if errors.Is(err, os.ErrNotExist) {
		os.Remove(StateFile + ".lock")
		return nil
	}
	if err != nil {
		return err
	}
	if err := s.stopController(); err != nil {
		return err
	}
	unlock, err := lock()
	if err != nil {
		return err
	}
	if s, err = Load(); err != nil {
		unlock()
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	if err := s.teardown(); err != nil {
		unlock()
		return err
	}
	err = os.Remove(StateFile)
	unlock()
	os.Remove(StateFile + ".lock")
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("lab: %v", err)
	}
	return nil
}

// teardown removes what the state names, whatever of it is there; the
// caller holds the lock. It goes on after a failure and reports them all.
func (s *State) teardown() error {
	ctx := context.Background()
	var errs []error
	if s.Cgroup != "" {
		if _, err := os.Stat(s.Cgroup); err == nil {
			if s.Dev != "" {
				s.throttle(0, 0)
			}
			if err := s.removeCgroup(); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if s.Mount != "" {
		for i := 0; i < 8; i++ { // mounted more than once: unmount them all
			mounted, err := sysinfo.IsMountPoint(s.Mount)
			if err != nil {
				errs = append(errs, err)
				break
			}
			if !mounted {
				break
			}
			if _, err := run(ctx, "umount", s.Mount); err != nil {
				errs = append(errs, fmt.Errorf("%v (is a process still using %s? see fuser -vm %s)", err, s.Mount, s.Mount))
				break
			}
		}
	}
	if s.Backing != "" {
		loops, err := loopsOf(ctx, s.Backing)
		if err != nil {
			errs = append(errs, err)
		}
		for _, l := range loops {
			if _, err := run(ctx, "losetup", "-d", l); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if s.Mount != "" {
		if err := os.Remove(s.Mount); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if s.Backing != "" {
		if err := os.Remove(s.Backing); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
		os.Remove(filepath.Dir(s.Backing)) // the lab's directory, when empty
	}
	return errors.Join(errs...)
}

// removeCgroup moves any process still in the lab cgroup to its parent and
// removes the cgroup.
func (s *State) removeCgroup() error {
	var err error
	for i := 0; i < 50; i++ {
		if procs, rerr := os.ReadFile(filepath.Join(s.Cgroup, "cgroup.procs")); rerr == nil {
			for _, p := range strings.Fields(string(procs)) {
				os.WriteFile(filepath.Join(filepath.Dir(s.Cgroup), "cgroup.procs"), []byte(p), 0o644)
			}
		}
		if err = os.Remove(s.Cgroup); err == nil || errors.Is(err, os.ErrNotExist) {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("lab: remove cgroup: %v", err)
}

// stopController ends the gp2 controller named in the state, if it is
// alive and is still the process that was recorded (never this process):
// SIGTERM, then SIGKILL after 3 s. A controller still there after SIGKILL
// is an error: the lab is left for another Down.
func (s *State) stopController() error {
	if !proc.StopOther(s.ControllerPID, s.ControllerStart, []proc.Step{{Signal: syscall.SIGTERM, Wait: 3 * time.Second}}) {
		return fmt.Errorf("lab: its controller (pid %d) is still there after SIGTERM and SIGKILL (stuck on I/O?); run lab down again once it is gone", s.ControllerPID)
	}
	return nil
}

// loopsOf lists the loop devices attached to a file.
func loopsOf(ctx context.Context, file string) ([]string, error) {
	if _, err := os.Stat(file); err != nil {
		return nil, nil
	}
	out, err := run(ctx, "losetup", "-j", file)
	if err != nil {
		return nil, err
	}
	var loops []string
	for _, line := range strings.Split(out, "\n") {
		if dev, _, ok := strings.Cut(line, ":"); ok && strings.HasPrefix(dev, "/dev/") {
			loops = append(loops, dev)
		}
	}
	return loops, nil
}

// run runs a program and returns its output; the error names the command
// and quotes what it said. Like a knob's commands, it gets no parent-death
// signal: a losetup or an umount cut short leaves the host half changed.
func run(ctx context.Context, name string, args ...string) (string, error) {
	res, err := proc.Run(ctx, proc.Cmd{Name: shell.Join(append([]string{name}, args...)...), Path: name, Args: args})
	if err != nil {
		return res.Stdout, fmt.Errorf("lab: %v", err)
	}
	return res.Stdout, nil
}
