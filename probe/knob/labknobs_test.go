package knob

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/perfbisect/perfbisect/probe/journal"
	"github.com/perfbisect/perfbisect/probe/lab"
)

// planLab is a lab that answers CheckVolume and records SetVolume.
type planLab struct {
	check error
	set   bool
}

func (l *planLab) Contains(string) bool { return true }
func (l *planLab) Volume() string       { return "gp2 30 GiB" }
func (l *planLab) CheckVolume(string, int, int) error {
	return l.check
}
func (l *planLab) SetVolume(context.Context, string, int, int) (string, Revert, error) {
	l.set = true
	return "gp3", func(context.Context) error { return nil }, nil
}
func (l *planLab) Image() string                { return "current" }
func (l *planLab) ImageChanges(string) []string { return nil }
func (l *planLab) SetImage(context.Context, string) (string, Revert, error) {
	return "", nil, errors.New("not here")
}
func (l *planLab) VolumeUndo() (journal.Action, error) { return journal.Action{Lab: &lab.Undo{}}, nil }
func (l *planLab) ImageUndo() (journal.Action, error)  { return journal.Action{Lab: &lab.Undo{}}, nil }

// TestVolumeTypePlanSaysWhatApplyCannotDo: a volume the lab cannot emulate,
// or a run without root, is unavailable at Plan, before the operator is
// asked, and Apply then changes nothing.
func TestVolumeTypePlanSaysWhatApplyCannotDo(t *testing.T) {
	w := spec(t.TempDir())
	k := newKnob(t, "volume-type", Settings{"to": "io2", "iops": "5000"})

	lab := &planLab{check: errors.New("lab: volume type io2: want gp2, gp3 or io1")}
	_, err := k.Plan(testCtx(t), Env{Root: true, Lab: lab}, w)
	wantUnavailable(t, err, "the lab cannot emulate it: lab: volume type io2")
	_, _, _, err = k.Apply(testCtx(t), Env{Root: true, Lab: lab}, w)
	wantUnavailable(t, err, "cannot emulate")
	if lab.set {
		t.Error("Apply changed the volume after Plan said it could not")
	}

	_, err = newKnob(t, "volume-type", Settings{"to": "gp3"}).Plan(testCtx(t), Env{Lab: &planLab{}}, w)
	wantUnavailable(t, err, "needs root")

	ok := &planLab{}
	c, err := newKnob(t, "volume-type", Settings{"to": "gp3"}).Plan(testCtx(t), Env{Root: true, Lab: ok}, w)
	if err != nil || c.Before != "gp2 30 GiB" || len(c.Do) != 1 {
		t.Errorf("plan on a lab that can: %+v, %v", c, err)
	}
}

// TestImagePlanInTheLab: the lab's image switch needs root, and a pinned
// AMI is said to stand for the lab's one older image.
func TestImagePlanInTheLab(t *testing.T) {
	w := spec(t.TempDir())
	_, err := newKnob(t, "image", nil).Plan(testCtx(t), Env{Lab: &planLab{}}, w)
	wantUnavailable(t, err, "needs root")
	c, err := newKnob(t, "image", Settings{"ami": "ami-0123456789abcdef0"}).Plan(testCtx(t), Env{Root: true, Lab: &planLab{}}, w)
	if err != nil || len(c.Do) == 0 || !strings.Contains(c.Do[len(c.Do)-1], "stands for ami-0123456789abcdef0") {
		t.Errorf("plan with an AMI in the lab: %+v, %v", c.Do, err)
	}
}
