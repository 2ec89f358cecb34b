package lab

import (
	"fmt"
	"path/filepath"

	"github.com/perfbisect/perfbisect/internal/shell"
	"github.com/perfbisect/perfbisect/probe/sysinfo"
)

// What a step changes on the lab, as it would on EC2: the volume's type
// (ModifyVolume) and the machine image. Each change returns how to put back
// what it found, and says in its errors how to do that by hand.

// Describe says what the emulated volume is now: its model and, for gp2,
// its burst credits.
func (s *State) Describe() string {
	d := s.Model.String()
	if s.Model.Type == "gp2" {
		d += fmt.Sprintf("; %.0f of %d burst credits", s.Credits, MaxCredits)
	}
	if k := s.Speed(); k != 1 {
		d += fmt.Sprintf("; run at %gx its IOPS and throughput", k)
	}
	return d
}

// CheckVolume says why the lab cannot emulate a volume of that type on its
// size, or nil.
func (s *State) CheckVolume(typ string, iops, throughputMiB int) error {
	_, err := NewModel(typ, s.Model.SizeGiB, iops, throughputMiB)
	return err
}

// ModifyVolume changes the emulated volume to another type on the same
// size, the lab's ModifyVolume, and returns how to put back the model and
// the credits it found.
func (s *State) ModifyVolume(typ string, iops, throughputMiB int) (revert func() error, err error) {
	before := *s
	m, err := NewModel(typ, s.Model.SizeGiB, iops, throughputMiB)
	if err == nil {
		err = s.SetModel(m)
	}
	if err != nil {
		return nil, err
	}
	return func() error {
		err := s.SetModel(before.Model)
		if err == nil {
			err = s.SetCredits(before.Credits)
		}
		if err != nil {
			return fmt.Errorf("lab volume still %s: %v (put it back by hand: perfbisect lab up --yes %s --credits %.0f, or lab down)",
				s.Model, err, upFlags(before.Model), before.Credits)
		}
		return nil
	}, nil
}

// upFlags are the `lab up` flags that give model m.
func upFlags(m Model) string {
	f := fmt.Sprintf("--type %s --size %d", m.Type, m.SizeGiB)
	if m.IOPS > 0 {
		f += fmt.Sprintf(" --iops %d", m.IOPS)
	}
	if m.ThroughputMiB > 0 {
		f += fmt.Sprintf(" --throughput %d", m.ThroughputMiB)
	}
	return f
}

// Image is an emulated machine image: what an AMI change plausibly changes
// on a host, its I/O scheduler and read-ahead, applied to the lab's loop
// device.
type Image struct {
	Scheduler   string
	ReadAheadKB string
}

// DefaultImage is the image a lab starts with.
const DefaultImage = "current"

// Images are the lab's emulated images by name.
var Images = map[string]Image{
	DefaultImage: {Scheduler: "none", ReadAheadKB: "128"},
	"previous":   {Scheduler: "mq-deadline", ReadAheadKB: "4096"},
}

// ImageName is the emulated image in force.
func (s *State) ImageName() string {
	if s.Image == "" {
		return DefaultImage
	}
	return s.Image
}

// queue is the sysfs directory of the loop device's request queue.
func (s *State) queue() string { return filepath.Join("/sys/block", filepath.Base(s.Loop), "queue") }

// ImageChanges says what switching to the image called name writes, each
// with what is there now; nil for an image the lab does not have.
func (s *State) ImageChanges(name string) []string {
	img, ok := Images[name]
	if !ok {
		return nil
	}
	q := s.queue()
	cur, _, err := sysinfo.ReadScheduler(q)
	if err != nil {
		cur = "?"
	}
	ra, err := sysinfo.ReadAhead(q)
	if err != nil {
		ra = "?"
	}
	return []string{
		fmt.Sprintf("%s (now %s)", shell.EchoTo(img.Scheduler, filepath.Join(q, "scheduler")), cur),
		fmt.Sprintf("%s (now %s)", shell.EchoTo(img.ReadAheadKB, filepath.Join(q, "read_ahead_kb")), ra),
	}
}

// SetImage switches the lab's device to the image called name and records
// it in the state. It returns what it set and how to put back the
// scheduler, read-ahead and image it found; when it fails, it has put them
// back already (or says how to by hand).
func (s *State) SetImage(name string) (after string, revert func() error, err error) {
	img, ok := Images[name]
	if !ok {
		return "", nil, fmt.Errorf("lab: no image %q (images: current, previous)", name)
	}
	q := s.queue()
	oldSched, _, err := sysinfo.ReadScheduler(q)
	if err != nil {
		return "", nil, fmt.Errorf("lab: %v", err)
	}
	oldRA, err := sysinfo.ReadAhead(q)
	if err != nil {
		return "", nil, fmt.Errorf("lab: %v", err)
	}
	old := Image{Scheduler: oldSched, ReadAheadKB: oldRA}
	oldName := s.ImageName()
	byHand := fmt.Sprintf("put it back by hand: %s; %s", shell.EchoTo(oldSched, filepath.Join(q, "scheduler")), shell.EchoTo(oldRA, filepath.Join(q, "read_ahead_kb")))
	if err := s.setImage(img, name); err != nil {
		if uerr := s.setImage(old, oldName); uerr != nil {
			return "", nil, fmt.Errorf("%v; putting the old image back failed too: %v (%s)", err, uerr, byHand)
		}
		return "", nil, err
	}
	revert = func() error {
		if err := s.setImage(old, oldName); err != nil {
			return fmt.Errorf("%v (%s)", err, byHand)
		}
		return nil
	}
	return fmt.Sprintf("%s image: scheduler %s, read-ahead %s KiB (emulated)", name, img.Scheduler, img.ReadAheadKB), revert, nil
}

// setImage writes img to the device through sysinfo, the one writer of
// those files (the scheduler knob's too), and records its name.
func (s *State) setImage(img Image, name string) error {
	q := s.queue()
	if err := sysinfo.SetScheduler(q, img.Scheduler); err != nil {
		return fmt.Errorf("set the lab's scheduler to %s (%s/scheduler): %v", img.Scheduler, q, err)
	}
	if err := sysinfo.SetReadAhead(q, img.ReadAheadKB); err != nil {
		return fmt.Errorf("set the lab's read-ahead to %s KiB (%s/read_ahead_kb): %v", img.ReadAheadKB, q, err)
	}
	return s.update(func(cur *State) error { cur.Image = name; return nil })
}
