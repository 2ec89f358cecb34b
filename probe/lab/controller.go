package lab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/perfbisect/perfbisect/internal/proc"
)

// WriteIOs is the number of write I/Os the lab cgroup has sent to the lab's
// device since the cgroup was made: cgroup v1 blkio.throttle.io_serviced
// (the "MAJ:MIN Write N" line), v2 io.stat (wios=N). Writes the kernel
// makes on its own (writeback, the ext4 journal) are not counted.
func (s *State) WriteIOs() (uint64, error) {
	c, ok := writeCounters[s.CgroupVersion]
	if !ok {
		return 0, fmt.Errorf("lab: unknown cgroup version %d", s.CgroupVersion)
	}
	b, err := os.ReadFile(filepath.Join(s.Cgroup, c.file))
	if err != nil {
		return 0, fmt.Errorf("lab: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == s.Dev {
			if n, ok := c.count(f[1:]); ok {
				return strconv.ParseUint(n, 10, 64)
			}
		}
	}
	return 0, nil // no I/O yet
}

// writeCounters is, for each cgroup version, the file that counts the
// cgroup's I/Os per device and how to find the write count among the
// fields that follow the device on one of its lines.
var writeCounters = map[int]struct {
	file  string
	count func(fields []string) (string, bool)
}{
	1: {"blkio.throttle.io_serviced", func(f []string) (string, bool) {
		if len(f) == 2 && f[0] == "Write" {
			return f[1], true
		}
		return "", false
	}},
	2: {"io.stat", func(f []string) (string, bool) {
		for _, kv := range f {
			if v, ok := strings.CutPrefix(kv, "wios="); ok {
				return v, true
			}
		}
		return "", false
	}},
}

// Tick is one step of the gp2 controller: it reads the write I/Os the lab
// cgroup did since the last tick (WriteIOs), brings the credit bucket up to
// now (credits += baseline*dt - ios, clamped to [0, MaxCredits]) and writes
// the throttle to the kernel when the limit changes (burst <-> baseline).
// Only gp2 has credits; for the other types it only keeps the count and the
// clock current. It changes s; save it (Update does).
func Tick(s *State, now time.Time) (changed bool, err error) {
	n, err := s.WriteIOs()
	if err != nil {
		return false, err
	}
	return s.advance(now, n)
}

// advance is Tick once the cgroup's write I/O count (total, since the
// cgroup was made) is known; it is the seam the tests feed with made-up
// counts. A count below the last one (a cgroup made anew) counts from zero.
func (s *State) advance(now time.Time, total uint64) (changed bool, err error) {
	ios := total
	if total >= s.LastIOs {
		ios = total - s.LastIOs
	}
	dt := 0.0
	if !s.CreditsAt.IsZero() {
		dt = max(now.Sub(s.CreditsAt).Seconds(), 0)
	}
	s.LastIOs, s.CreditsAt = total, now
	if s.Model.Type != "gp2" {
		return false, nil
	}
	before, _ := s.Limit()
	// On a scaled lab an I/O done stands for 1/Speed of the model's, so
	// that the bucket drains and fills at EBS's pace.
	s.Credits = clampCredits(s.Credits + float64(s.Model.Baseline())*dt - float64(ios)/s.Speed())
	if after, _ := s.Limit(); after != before {
		return true, s.Apply()
	}
	return false, nil
}

// RunController keeps a gp2 lab's credit bucket: every period (a second
// when every <= 0) it runs Tick under the lab's lock, until ctx is done or
// the lab goes down (then it returns nil). It records itself in the state
// (ControllerPID) so that Down can stop it, and refuses to run next to
// another live controller.
func RunController(ctx context.Context, every time.Duration) error {
	if every <= 0 {
		every = time.Second
	}
	pid := os.Getpid()
	start, _ := proc.StartTime(pid)
	_, err := Update(func(s *State) error {
		if s.ControllerPID != 0 && s.ControllerPID != pid && proc.Alive(s.ControllerPID) {
			return fmt.Errorf("lab: a controller is already running (pid %d)", s.ControllerPID)
		}
		s.ControllerPID, s.ControllerStart = pid, start
		_, err := Tick(s, time.Now())
		return err
	})
	if err != nil {
		return err
	}
	defer Update(func(s *State) error {
		if s.ControllerPID == pid {
			s.ControllerPID, s.ControllerStart = 0, 0
		}
		return nil
	})
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case now := <-t.C:
			_, err := Update(func(s *State) error {
				_, err := Tick(s, now)
				return err
			})
			if errors.Is(err, os.ErrNotExist) {
				return nil // the lab went down
			}
			if err != nil {
				return err
			}
		}
	}
}
