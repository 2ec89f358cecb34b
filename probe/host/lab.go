package host

import (
	"context"
	"errors"
	"fmt"

	"github.com/perfbisect/perfbisect/probe/journal"
	"github.com/perfbisect/perfbisect/probe/knob"
	"github.com/perfbisect/perfbisect/probe/lab"
)

// labVolume lets knobs act on the lab (perfbisect lab up): it satisfies
// knob.Lab, and the lab package does the emulating. It reads the lab's
// state file at every call: the lab's controller and other processes
// change it.
type labVolume struct{}

func (labVolume) load() (*lab.State, bool) {
	st, err := lab.Load()
	return st, err == nil
}

var errLabDown = errors.New("the lab is down")

func (l labVolume) Contains(dir string) bool {
	st, ok := l.load()
	return ok && st.Contains(dir)
}

func (l labVolume) Volume() string {
	st, ok := l.load()
	if !ok {
		return "no lab"
	}
	return st.Describe()
}

func (l labVolume) CheckVolume(typ string, iops, throughputMiB int) error {
	st, ok := l.load()
	if !ok {
		return errLabDown
	}
	return st.CheckVolume(typ, iops, throughputMiB)
}

func (l labVolume) SetVolume(ctx context.Context, typ string, iops, throughputMiB int) (string, knob.Revert, error) {
	st, err := lab.Current()
	if err == nil && st == nil {
		err = errLabDown
	}
	var revert func() error
	if err == nil {
		revert, err = st.ModifyVolume(typ, iops, throughputMiB)
	}
	if err != nil {
		return "", nil, fmt.Errorf("lab: %v", err)
	}
	return st.Describe() + " (emulated)", func(context.Context) error { return revert() }, nil
}

func (l labVolume) Image() string {
	if st, ok := l.load(); ok {
		return st.ImageName()
	}
	return lab.DefaultImage
}

func (l labVolume) ImageChanges(name string) []string {
	if st, ok := l.load(); ok {
		return st.ImageChanges(name)
	}
	return nil
}

func (l labVolume) SetImage(ctx context.Context, name string) (string, knob.Revert, error) {
	st, ok := l.load()
	if !ok {
		return "", nil, fmt.Errorf("lab: %v", errLabDown)
	}
	after, revert, err := st.SetImage(name)
	if err != nil {
		return "", nil, err
	}
	return after, func(context.Context) error { return revert() }, nil
}

func (l labVolume) VolumeUndo() (journal.Action, error) {
	st, ok := l.load()
	if !ok {
		return journal.Action{}, fmt.Errorf("lab: %v", errLabDown)
	}
	u := st.VolumeUndo()
	return journal.Action{Lab: &u}, nil
}

func (l labVolume) ImageUndo() (journal.Action, error) {
	st, ok := l.load()
	if !ok {
		return journal.Action{}, fmt.Errorf("lab: %v", errLabDown)
	}
	u, err := st.ImageUndo()
	return journal.Action{Lab: &u}, err
}
