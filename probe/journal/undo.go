package journal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/perfbisect/perfbisect/internal/pathx"
	"github.com/perfbisect/perfbisect/internal/proc"
	"github.com/perfbisect/perfbisect/internal/shell"
	"github.com/perfbisect/perfbisect/probe/lab"
	"github.com/perfbisect/perfbisect/probe/sysinfo"
)

// Action is one way of putting something back, as data a new process can
// carry out: exactly one field is set. Every action can be done again
// without harm (an unmounted tmpfs, a server already gone), because a crash
// may come between doing it and removing its entry.
type Action struct {
	// Write writes a value back to a kernel setting (a block device's
	// scheduler in sysfs, a sysctl in /proc/sys).
	Write *Write `json:"write,omitempty"`
	// Unmount unmounts a tmpfs perfbisect mounted, then removes its (empty)
	// mount point.
	Unmount string `json:"unmount,omitempty"`
	// RemoveAll removes a directory perfbisect created, with what is in it.
	RemoveAll string `json:"remove_all,omitempty"`
	// Remount puts a filesystem's mount options back.
	Remount *Remount `json:"remount,omitempty"`
	// Shell runs a playbook's revert command.
	Shell *Shell `json:"shell,omitempty"`
	// Stop ends a process perfbisect started (a managed database server).
	Stop *Stop `json:"stop,omitempty"`
	// Lab puts the lab's emulated volume or image back.
	Lab *lab.Undo `json:"lab,omitempty"`
}

// Write is a value written to a file.
type Write struct {
	File  string `json:"file"`
	Value string `json:"value"`
}

// Remount is mount -o Options Point.
type Remount struct {
	Point   string `json:"point"`
	Options string `json:"options"`
}

// Shell is Shell -c Script with Env added to the environment.
type Shell struct {
	Shell    string   `json:"shell"`
	Script   string   `json:"script"`
	Env      []string `json:"env,omitempty"`
	TimeoutS float64  `json:"timeout_s,omitempty"`
}

// Stop is a process to end: PID, only while it is still the process that
// started at Start. The signal goes to its process group when Group says so.
type Stop struct {
	Name  string `json:"name"`
	PID   int    `json:"pid"`
	Start uint64 `json:"start"`
	Group bool   `json:"group,omitempty"`
}

// busyFor is how long a busy tmpfs is retried before giving up.
var busyFor = 3 * time.Second

// stopWait is how long a stopped process has to exit before SIGKILL.
var stopWait = 30 * time.Second

// Do carries the action out.
func (a Action) Do(ctx context.Context) error {
	switch {
	case a.Write != nil:
		return sysinfo.WriteSys(a.Write.File, a.Write.Value)
	case a.Unmount != "":
		return unmount(a.Unmount)
	case a.RemoveAll != "":
		return pathx.Bare(os.RemoveAll(a.RemoveAll))
	case a.Remount != nil:
		_, err := proc.Run(ctx, proc.Cmd{Path: "mount", Args: []string{"-o", a.Remount.Options, a.Remount.Point}, Timeout: time.Minute})
		return err
	case a.Shell != nil:
		t := time.Duration(a.Shell.TimeoutS * float64(time.Second))
		if t <= 0 {
			t = time.Minute
		}
		_, err := proc.Run(ctx, proc.Cmd{Path: a.Shell.Shell, Args: []string{"-c", a.Shell.Script}, Env: append(os.Environ(), a.Shell.Env...), Timeout: t})
		return err
	case a.Stop != nil:
		return stop(ctx, *a.Stop)
	case a.Lab != nil:
		st, err := lab.Current()
		if err != nil || st == nil {
			return fmt.Errorf("the lab is down, so its emulated volume is gone too: nothing to put back (%v)", err)
		}
		return st.Restore(*a.Lab)
	}
	return errors.New("an undo action of a kind this perfbisect does not know")
}

// Hand is the action as an operator would do it.
func (a Action) Hand() string {
	switch {
	case a.Write != nil:
		return shell.EchoTo(a.Write.Value, a.Write.File)
	case a.Unmount != "":
		return shell.Join("umount", a.Unmount) + " && " + shell.Join("rmdir", a.Unmount)
	case a.RemoveAll != "":
		return shell.Join("rm", "-rf", a.RemoveAll)
	case a.Remount != nil:
		return shell.Join("mount", "-o", a.Remount.Options, a.Remount.Point)
	case a.Shell != nil:
		return strings.Join(append(quoted(a.Shell.Env), shell.Join(a.Shell.Shell, "-c", a.Shell.Script)), " ")
	case a.Stop != nil:
		return fmt.Sprintf("kill %d (the %s, if it is still running: ps -p %d)", a.Stop.PID, a.Stop.Name, a.Stop.PID)
	case a.Lab != nil:
		return a.Lab.Hand()
	}
	return "see the entry's file"
}

func quoted(vars []string) []string {
	out := make([]string, len(vars))
	for i, v := range vars {
		name, val, _ := strings.Cut(v, "=")
		out[i] = name + "=" + shell.Quote(val)
	}
	return out
}

// unmount unmounts a tmpfs and removes its mount point; one already
// unmounted only has its mount point removed. rmdir, not rm -rf: a failed
// unmount can never delete data.
func unmount(dir string) error {
	err := syscall.Unmount(dir, 0)
	// The dead session's workload may still be closing its files.
	for end := time.Now().Add(busyFor); errors.Is(err, syscall.EBUSY) && time.Now().Before(end); {
		time.Sleep(100 * time.Millisecond)
		err = syscall.Unmount(dir, 0)
	}
	if err != nil {
		if mounted, merr := sysinfo.IsMountPoint(dir); merr != nil || mounted {
			hint := ""
			if errors.Is(err, syscall.EBUSY) {
				hint = " (fuser -vm " + shell.Quote(dir) + " shows who holds it)"
			}
			return fmt.Errorf("umount %s: %v%s", dir, err, hint)
		}
	}
	if err := os.Remove(dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("rmdir %s: %v", dir, pathx.Bare(err))
	}
	return nil
}

// stop ends s with SIGTERM, then SIGKILL after stopWait. A pid that is not
// the process any more (gone, or reused by another) is left alone.
func stop(ctx context.Context, s Stop) error {
	if !sameProcess(s.PID, s.Start) {
		return nil
	}
	target := s.PID
	if s.Group {
		target = -s.PID
	}
	if err := syscall.Kill(target, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("stop the %s (pid %d): %v", s.Name, s.PID, err)
	}
	if gone(ctx, s) {
		return nil
	}
	if err := syscall.Kill(target, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("kill the %s (pid %d): %v", s.Name, s.PID, err)
	}
	if !gone(context.WithoutCancel(ctx), s) {
		return fmt.Errorf("the %s (pid %d) is still running %s after SIGKILL", s.Name, s.PID, stopWait)
	}
	return nil
}

// gone waits up to stopWait for s to exit, or less when ctx ends.
func gone(ctx context.Context, s Stop) bool {
	ctx, cancel := context.WithTimeout(ctx, stopWait)
	defer cancel()
	for sameProcess(s.PID, s.Start) {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(50 * time.Millisecond):
		}
	}
	return true
}

// String names the pid for a person.
func (s Stop) String() string { return s.Name + " pid " + strconv.Itoa(s.PID) }
