package knob

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/perfbisect/perfbisect/probe"
)

var schedulerSettings = map[string]string{
	"value": "the I/O scheduler to switch the data dir's disk to, like none, mq-deadline, bfq or kyber (required)",
}

func init() {
	register(Kind{
		Name:     "scheduler",
		Summary:  "switch the I/O scheduler of the disk under the data dir (/sys/block/DEV/queue/scheduler)",
		Settings: schedulerSettings,
		New:      newScheduler,
	})
}

type scheduler struct {
	value    string
	settings Settings
}

func newScheduler(s Settings) (Knob, error) {
	if err := checkSettings("scheduler", s, schedulerSettings); err != nil {
		return nil, err
	}
	v, err := required("scheduler", s, "value", "the I/O scheduler to switch to, like none, mq-deadline, bfq or kyber")
	if err != nil {
		return nil, err
	}
	if strings.ContainsAny(v, " \t\n[]") {
		return nil, fmt.Errorf("scheduler: value %q: want one scheduler name, like none, mq-deadline, bfq or kyber", v)
	}
	return &scheduler{value: v, settings: s}, nil
}

// schedPlan is the disk whose scheduler changes, and from what.
type schedPlan struct {
	disk, file, from string
	change           Change
}

func (k *scheduler) Plan(ctx context.Context, env Env, w probe.Spec) (Change, error) {
	p, err := k.plan(env, w)
	return p.change, err
}

func (k *scheduler) plan(env Env, w probe.Spec) (schedPlan, error) {
	dir, m, err := dataMount(w)
	if err != nil {
		return schedPlan{}, fmt.Errorf("scheduler: %v", err)
	}
	disk, file, err := schedulerFile(dir, m)
	if err != nil {
		return schedPlan{}, err
	}
	cur, offered, err := readScheduler(file)
	if err != nil {
		return schedPlan{}, fmt.Errorf("scheduler: %v", err)
	}
	if !slices.Contains(offered, k.value) {
		return schedPlan{}, &Unavailable{Knob: "scheduler", Reason: fmt.Sprintf("%s offers %s, not %s (a scheduler built as a module is offered once loaded: modprobe %s)", disk, strings.Join(offered, ", "), k.value, strings.TrimSuffix(k.value, "-iosched"))}
	}
	p := schedPlan{disk: disk, file: file, from: cur}
	p.change = Change{
		Knob:     "scheduler",
		Settings: k.settings,
		Before:   fmt.Sprintf("%s (%s, holding %s)", cur, disk, dir),
		After:    fmt.Sprintf("%s (%s)", k.value, disk),
	}
	if cur == k.value {
		p.change.Do = []string{fmt.Sprintf("nothing: %s already uses %s", disk, cur)}
		p.change.Undo = []string{"nothing"}
		return p, nil
	}
	if !env.Root {
		return p, &Unavailable{Knob: "scheduler", Reason: fmt.Sprintf("changing the I/O scheduler of %s needs root (it writes %s)", disk, file)}
	}
	p.change.Do = []string{echoTo(k.value, file)}
	p.change.Undo = []string{echoTo(cur, file)}
	return p, nil
}

func (k *scheduler) Apply(ctx context.Context, env Env, w probe.Spec) (probe.Spec, Change, Revert, error) {
	p, err := k.plan(env, w)
	if err != nil {
		return w, p.change, nil, err
	}
	if p.from == k.value {
		return w, p.change, nothingToRevert, nil
	}
	revert := once(func(context.Context) error {
		if err := setScheduler(p.file, p.from); err != nil {
			return fmt.Errorf("I/O scheduler of %s still changed: %v (put it back by hand: %s)", p.disk, err, echoTo(p.from, p.file))
		}
		return nil
	})
	if err := setScheduler(p.file, k.value); err != nil {
		// A refused write leaves the old scheduler; put it back anyway in
		// case the kernel switched before failing.
		return w, p.change, nil, errors.Join(fmt.Errorf("scheduler: %v", err), revert(ctx))
	}
	return w, p.change, revert, nil
}

// setScheduler writes a scheduler and checks the kernel took it.
func setScheduler(file, name string) error {
	if err := writeSys(file, name); err != nil {
		return fmt.Errorf("%s: %v", echoTo(name, file), err)
	}
	cur, _, err := readScheduler(file)
	if err != nil {
		return err
	}
	if cur != name {
		return fmt.Errorf("%s: the kernel kept %s", echoTo(name, file), cur)
	}
	return nil
}

// schedulerFile finds the disk under dir and its scheduler file: the disk
// itself for a partition, since partitions share their disk's queue. For a
// stacked device (device-mapper, md) it is the top device's queue only; the
// disks below keep their own schedulers.
func schedulerFile(dir string, m mountEntry) (disk, file string, err error) {
	var st syscall.Stat_t
	if err := syscall.Stat(dir, &st); err != nil {
		return "", "", fmt.Errorf("scheduler: stat %s: %v", dir, err)
	}
	sys := devSysPath(st.Dev)
	if _, err := os.Stat(sys); err != nil && strings.HasPrefix(m.Source, "/dev/") {
		// btrfs and others report an anonymous device in st_dev; the mount
		// source names the real one.
		if err := syscall.Stat(m.Source, &st); err == nil && st.Mode&syscall.S_IFMT == syscall.S_IFBLK {
			sys = devSysPath(st.Rdev)
		}
	}
	real, err := filepath.EvalSymlinks(sys)
	if err != nil {
		return "", "", &Unavailable{Knob: "scheduler", Reason: fmt.Sprintf("%s is on %s (%s), which is not a block device: there is no I/O scheduler to change", dir, m.FSType, m.Source)}
	}
	if _, err := os.Stat(filepath.Join(real, "partition")); err == nil {
		real = filepath.Dir(real)
	}
	disk = filepath.Base(real)
	file = filepath.Join("/sys/block", disk, "queue", "scheduler")
	if _, err := os.Stat(file); err != nil {
		file = filepath.Join(real, "queue", "scheduler")
		if _, err := os.Stat(file); err != nil {
			return disk, "", &Unavailable{Knob: "scheduler", Reason: fmt.Sprintf("%s (under %s) has no I/O scheduler: no %s", disk, dir, file)}
		}
	}
	return disk, file, nil
}

// devSysPath is the sysfs directory of a device number (see makedev(3)).
func devSysPath(dev uint64) string {
	major := (dev>>8)&0xfff | (dev>>32)&0xfffff000
	minor := dev&0xff | (dev>>12)&0xffffff00
	return fmt.Sprintf("/sys/dev/block/%d:%d", major, minor)
}

func readScheduler(file string) (current string, offered []string, err error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", nil, fmt.Errorf("read %s: %v", file, unwrapPath(err))
	}
	current, offered = parseSchedulers(string(b))
	if len(offered) == 0 {
		return "", nil, fmt.Errorf("%s is empty", file)
	}
	return current, offered, nil
}

// parseSchedulers reads "[mq-deadline] kyber bfq none": the one in brackets
// is in use. A device with a single choice may show it without brackets.
func parseSchedulers(s string) (current string, offered []string) {
	for _, f := range strings.Fields(s) {
		if name, ok := strings.CutPrefix(f, "["); ok {
			name = strings.TrimSuffix(name, "]")
			current = name
			f = name
		}
		offered = append(offered, f)
	}
	if current == "" && len(offered) == 1 {
		current = offered[0]
	}
	return current, offered
}

// writeSys writes a value to an existing /sys or /proc file, in one write
// as the kernel expects.
func writeSys(file, value string) error {
	f, err := os.OpenFile(file, os.O_WRONLY, 0)
	if err != nil {
		return unwrapPath(err)
	}
	_, err = f.Write([]byte(value))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return unwrapPath(err)
}

// echoTo is the shell command that writes value to file.
func echoTo(value, file string) string {
	return "echo " + shellQuote(value) + " > " + shellQuote(file)
}
