package knob

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/perfbisect/perfbisect/internal/shell"
	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/journal"
	"github.com/perfbisect/perfbisect/probe/sysinfo"
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
	disk, queue, from string
	change            Change
}

// file is the sysfs file that holds the disk's scheduler.
func (p schedPlan) file() string { return filepath.Join(p.queue, "scheduler") }

func (k *scheduler) Plan(ctx context.Context, env Env, w probe.Spec) (Change, error) {
	p, err := k.plan(env, w)
	return p.change, err
}

func (k *scheduler) plan(env Env, w probe.Spec) (schedPlan, error) {
	dir, m, err := dataMount(w)
	if err != nil {
		return schedPlan{}, fmt.Errorf("scheduler: %v", err)
	}
	disk, queue, err := schedulerQueue(dir, m)
	if err != nil {
		return schedPlan{}, err
	}
	cur, offered, err := sysinfo.ReadScheduler(queue)
	if err != nil {
		return schedPlan{}, fmt.Errorf("scheduler: %v", err)
	}
	if !slices.Contains(offered, k.value) {
		return schedPlan{}, &Unavailable{Knob: "scheduler", Reason: fmt.Sprintf("%s offers %s, not %s (a scheduler built as a module is offered once loaded: modprobe %s)", disk, strings.Join(offered, ", "), k.value, strings.TrimSuffix(k.value, "-iosched"))}
	}
	p := schedPlan{disk: disk, queue: queue, from: cur}
	file := p.file()
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
	p.change.Do = []string{shell.EchoTo(k.value, file)}
	p.change.Undo = []string{shell.EchoTo(cur, file)}
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
		if err := setScheduler(p.queue, p.from); err != nil {
			return fmt.Errorf("I/O scheduler of %s still changed: %v (put it back by hand: %s)", p.disk, err, shell.EchoTo(p.from, p.file()))
		}
		return nil
	})
	if err := will(env, fmt.Sprintf("I/O scheduler of %s set to %s (was %s)", p.disk, k.value, p.from),
		journal.Action{Write: &journal.Write{File: p.file(), Value: p.from}}); err != nil {
		return w, p.change, nil, fmt.Errorf("scheduler: %v", err)
	}
	if err := setScheduler(p.queue, k.value); err != nil {
		// A refused write leaves the old scheduler; put it back anyway in
		// case the kernel switched before failing.
		return w, p.change, nil, errors.Join(fmt.Errorf("scheduler: %v", err), revert(ctx))
	}
	return w, p.change, revert, nil
}

// setScheduler switches the scheduler through sysinfo, the one writer of
// the file, and names the command in its error.
func setScheduler(queue, name string) error {
	if err := sysinfo.SetScheduler(queue, name); err != nil {
		return fmt.Errorf("%s: %v", shell.EchoTo(name, filepath.Join(queue, "scheduler")), err)
	}
	return nil
}

// schedulerQueue finds the disk under dir and its request queue, whose
// scheduler file the knob writes.
func schedulerQueue(dir string, m sysinfo.Mount) (disk, queue string, err error) {
	disk, queue, err = sysinfo.BlockDevice(dir, m)
	if errors.Is(err, sysinfo.ErrNotBlockDevice) {
		return "", "", &Unavailable{Knob: "scheduler", Reason: fmt.Sprintf("%s is on %s (%s), which is not a block device: there is no I/O scheduler to change", dir, m.FSType, m.Source)}
	}
	if err != nil {
		return "", "", fmt.Errorf("scheduler: %v", err)
	}
	file := filepath.Join(queue, "scheduler")
	if _, err := os.Stat(file); err != nil {
		return disk, "", &Unavailable{Knob: "scheduler", Reason: fmt.Sprintf("%s (under %s) has no I/O scheduler: no %s", disk, dir, file)}
	}
	return disk, queue, nil
}
