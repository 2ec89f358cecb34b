package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/perfbisect/perfbisect/probe/knob"
	"github.com/perfbisect/perfbisect/probe/lab"
	"github.com/perfbisect/perfbisect/probe/sysinfo"
)

// labVolume lets knobs act on the lab (perfbisect lab up). It reads the
// lab's state file at every call: the lab's controller and other processes
// change it.
type labVolume struct{}

func (labVolume) load() (*lab.State, bool) {
	st, err := lab.Load()
	return st, err == nil
}

func (l labVolume) Contains(dir string) bool {
	st, ok := l.load()
	return ok && st.Contains(dir)
}

func (l labVolume) Volume() string {
	st, ok := l.load()
	if !ok {
		return "no lab"
	}
	return describeVolume(st)
}

func describeVolume(st *lab.State) string {
	s := st.Model.String()
	if st.Model.Type == "gp2" {
		s += fmt.Sprintf("; %.0f of %d burst credits", st.Credits, lab.MaxCredits)
	}
	return s
}

func (l labVolume) CheckVolume(typ string, iops, throughputMiB int) error {
	st, ok := l.load()
	if !ok {
		return errors.New("the lab is down")
	}
	_, err := lab.NewModel(typ, st.Model.SizeGiB, iops, throughputMiB)
	return err
}

func (l labVolume) SetVolume(ctx context.Context, typ string, iops, throughputMiB int) (string, knob.Revert, error) {
	st, err := lab.Current()
	if err == nil && st == nil {
		err = errors.New("the lab is down")
	}
	if err != nil {
		return "", nil, fmt.Errorf("lab: %v", err)
	}
	before := *st
	m, err := lab.NewModel(typ, st.Model.SizeGiB, iops, throughputMiB)
	if err == nil {
		err = st.SetModel(m)
	}
	if err != nil {
		return "", nil, fmt.Errorf("lab: %v", err)
	}
	revert := func(ctx context.Context) error {
		err := st.SetModel(before.Model)
		if err == nil {
			err = st.SetCredits(before.Credits)
		}
		if err != nil {
			return fmt.Errorf("lab volume still %s: %v (put it back by hand: perfbisect lab up --yes %s --credits %.0f, or lab down)",
				st.Model, err, upFlags(before.Model), before.Credits)
		}
		return nil
	}
	return describeVolume(st) + " (emulated)", revert, nil
}

// upFlags are the `lab up` flags that give model m.
func upFlags(m lab.Model) string {
	f := fmt.Sprintf("--type %s --size %d", m.Type, m.SizeGiB)
	if m.IOPS > 0 {
		f += fmt.Sprintf(" --iops %d", m.IOPS)
	}
	if m.ThroughputMiB > 0 {
		f += fmt.Sprintf(" --throughput %d", m.ThroughputMiB)
	}
	return f
}

// The lab's images: what an AMI change plausibly changes on a host (its
// I/O scheduler and read-ahead), applied to the lab's loop device.
var labImages = map[string]struct{ scheduler, readAheadKB string }{
	"current":  {"none", "128"},
	"previous": {"mq-deadline", "4096"},
}

func (l labVolume) Image() string {
	if st, ok := l.load(); ok && st.Image != "" {
		return st.Image
	}
	return "current"
}

func (l labVolume) ImageChanges(name string) []string {
	st, ok := l.load()
	img, known := labImages[name]
	if !ok || !known {
		return nil
	}
	q := queueDir(st)
	cur, _, _ := sysinfo.ReadScheduler(q)
	return []string{
		fmt.Sprintf("echo %s > %s/scheduler (now %s)", img.scheduler, q, cur),
		fmt.Sprintf("echo %s > %s/read_ahead_kb (now %s)", img.readAheadKB, q, readSys(q+"/read_ahead_kb")),
	}
}

func (l labVolume) SetImage(ctx context.Context, name string) (string, knob.Revert, error) {
	st, ok := l.load()
	img, known := labImages[name]
	if !ok || !known {
		return "", nil, fmt.Errorf("lab: no image %q (images: current, previous)", name)
	}
	q := queueDir(st)
	oldSched, _, err := sysinfo.ReadScheduler(q)
	if err != nil {
		return "", nil, fmt.Errorf("lab: %v", err)
	}
	oldRA, oldName := readSys(q+"/read_ahead_kb"), l.Image()
	set := func(sched, ra, image string) error {
		if err := os.WriteFile(q+"/scheduler", []byte(sched), 0o644); err != nil {
			return fmt.Errorf("set the lab's scheduler to %s: %v", sched, err)
		}
		if err := os.WriteFile(q+"/read_ahead_kb", []byte(ra), 0o644); err != nil {
			return fmt.Errorf("set the lab's read-ahead to %s KiB: %v", ra, err)
		}
		_, err := lab.Update(func(s *lab.State) error { s.Image = image; return nil })
		return err
	}
	if err := set(img.scheduler, img.readAheadKB, name); err != nil {
		if uerr := set(oldSched, oldRA, oldName); uerr != nil {
			return "", nil, fmt.Errorf("%v; putting the old image back failed too: %v (put it back by hand: echo %s > %s/scheduler; echo %s > %s/read_ahead_kb)",
				err, uerr, oldSched, q, oldRA, q)
		}
		return "", nil, err
	}
	revert := func(ctx context.Context) error {
		if err := set(oldSched, oldRA, oldName); err != nil {
			return fmt.Errorf("%v (put it back by hand: echo %s > %s/scheduler; echo %s > %s/read_ahead_kb)", err, oldSched, q, oldRA, q)
		}
		return nil
	}
	return fmt.Sprintf("%s image: scheduler %s, read-ahead %s KiB (emulated)", name, img.scheduler, img.readAheadKB), revert, nil
}

func queueDir(st *lab.State) string { return "/sys/block/" + filepath.Base(st.Loop) + "/queue" }

func readSys(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(b))
}
