package lab

import (
	"fmt"
	"path/filepath"

	"github.com/perfbisect/perfbisect/internal/shell"
	"github.com/perfbisect/perfbisect/probe/sysinfo"
)

// Undo is how to put the lab's emulated volume or image back as it was, as
// data: the crash journal keeps it so that a perfbisect killed in a lab step
// can be put back by another (perfbisect recover). A nil field is left as it
// is.
type Undo struct {
	Model     *Model   `json:"model,omitempty"`
	Credits   *float64 `json:"credits,omitempty"`
	Image     *Image   `json:"image,omitempty"`
	ImageName string   `json:"image_name,omitempty"`
	Queue     string   `json:"queue,omitempty"` // the loop device's request queue, for Hand
}

// VolumeUndo is how to put the volume's model and credits back as they are now.
func (s *State) VolumeUndo() Undo {
	m, c := s.Model, s.Credits
	return Undo{Model: &m, Credits: &c}
}

// ImageUndo is how to put the image back as it is now.
func (s *State) ImageUndo() (Undo, error) {
	q := s.queue()
	sched, _, err := sysinfo.ReadScheduler(q)
	if err != nil {
		return Undo{}, fmt.Errorf("lab: %v", err)
	}
	ra, err := sysinfo.ReadAhead(q)
	if err != nil {
		return Undo{}, fmt.Errorf("lab: %v", err)
	}
	return Undo{Image: &Image{Scheduler: sched, ReadAheadKB: ra}, ImageName: s.ImageName(), Queue: q}, nil
}

// Restore puts back what u holds.
func (s *State) Restore(u Undo) error {
	if u.Model != nil {
		if err := s.SetModel(*u.Model); err != nil {
			return err
		}
	}
	if u.Credits != nil {
		if err := s.SetCredits(*u.Credits); err != nil {
			return err
		}
	}
	if u.Image != nil {
		return s.setImage(*u.Image, u.ImageName)
	}
	return nil
}

// Hand is how to put u back by hand.
func (u Undo) Hand() string {
	var out string
	if u.Model != nil {
		out = "perfbisect lab up --yes " + upFlags(*u.Model)
		if u.Credits != nil {
			out += fmt.Sprintf(" --credits %.0f", *u.Credits)
		}
	}
	if u.Image != nil {
		if out != "" {
			out += "; "
		}
		out += shell.EchoTo(u.Image.Scheduler, filepath.Join(u.Queue, "scheduler")) + "; " + shell.EchoTo(u.Image.ReadAheadKB, filepath.Join(u.Queue, "read_ahead_kb"))
	}
	return out
}
