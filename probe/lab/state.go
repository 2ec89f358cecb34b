package lab

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// StateFile is where the lab's state lives while it is up (a var so tests
// can point it elsewhere). Its lock is StateFile+".lock".
var StateFile = "/run/perfbisect/lab.json"

// State is a lab that is up: what was built, which emulated volume it
// imitates and the gp2 credit bucket. It is stored as JSON in StateFile.
type State struct {
	Backing       string    `json:"backing"`        // sparse file behind the loop device
	Loop          string    `json:"loop"`           // like /dev/loop3
	Dev           string    `json:"dev"`            // the loop device's major:minor
	Mount         string    `json:"mount"`          // the lab filesystem's mount point
	DataDir       string    `json:"data_dir"`       // Mount/data: where workloads write
	Cgroup        string    `json:"cgroup"`         // the throttled cgroup's directory
	CgroupVersion int       `json:"cgroup_version"` // 1 (blkio) or 2 (io)
	Model         Model     `json:"model"`
	Credits       float64   `json:"credits"`         // gp2 I/O credits left
	CreditsAt     time.Time `json:"credits_at"`      // when Credits and LastIOs were last brought up to date
	LastIOs       uint64    `json:"last_ios"`        // the cgroup's write I/O count at CreditsAt
	Image         string    `json:"image"`           // emulated image: "current" or "previous"
	Scale         float64   `json:"scale,omitempty"` // fraction of the model's limits in force (UpOptions.Scale); 0 in older states means 1
	ControllerPID int       `json:"controller_pid,omitempty"`
	// ControllerStart is the controller's start time (field 22 of
	// /proc/PID/stat), so that Down never kills a process that reused its PID.
	ControllerStart uint64 `json:"controller_start,omitempty"`
}

// Load reads the lab's state. When the lab is down the error satisfies
// errors.Is(err, os.ErrNotExist).
func Load() (*State, error) {
	b, err := os.ReadFile(StateFile)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("lab is down (no %s): %w", StateFile, err)
		}
		return nil, fmt.Errorf("lab: %w", err)
	}
	var s State
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("lab: state file %s: %v", StateFile, err)
	}
	return &s, nil
}

// Current is the lab that is up, or nil when it is down. A state file that
// cannot be read is an error, not "down": a lab mistaken for none would
// have its volume measured unthrottled, or a second lab built beside it.
func Current() (*State, error) {
	s, err := Load()
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return s, err
}

// lock takes the lab's lock (an flock on StateFile+".lock") and returns
// its release. Every change of the state file happens under it.
func lock() (func(), error) {
	if err := os.MkdirAll(filepath.Dir(StateFile), 0o755); err != nil {
		return nil, fmt.Errorf("lab: %v", err)
	}
	f, err := os.OpenFile(StateFile+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lab: lock: %v", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lab: lock %s: %v", f.Name(), err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// Save writes the state atomically (a temporary file renamed over
// StateFile) under the lab's lock.
func (s *State) Save() error {
	unlock, err := lock()
	if err != nil {
		return err
	}
	defer unlock()
	return s.save()
}

// save writes the state; the caller holds the lock.
func (s *State) save() error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(StateFile), filepath.Base(StateFile)+".tmp*")
	if err != nil {
		return fmt.Errorf("lab: save state: %v", err)
	}
	_, err = f.Write(append(b, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), StateFile)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("lab: save state: %v", err)
	}
	return nil
}

// Update is the one way for several processes to change the lab: under the
// lock it loads the state, calls fn, writes the limits to the kernel and
// saves. fn's error aborts without saving.
func Update(fn func(*State) error) (*State, error) {
	unlock, err := lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	s, err := Load()
	if err != nil {
		return nil, err
	}
	if err := fn(s); err != nil {
		return nil, err
	}
	if err := s.commit(); err != nil {
		return nil, err
	}
	return s, nil
}

// commit writes the limits to the kernel, then saves the state, so that
// the state file never holds limits the kernel refused; the caller holds
// the lock.
func (s *State) commit() error {
	if err := s.Apply(); err != nil {
		return err
	}
	return s.save()
}

// SetModel changes the emulated volume, the lab's ModifyVolume: the new
// limits are written to the kernel and saved, under the lock. The credit
// bucket is kept (it matters again if the volume goes back to gp2).
func (s *State) SetModel(m Model) error {
	m, err := NewModel(m.Type, m.SizeGiB, m.IOPS, m.ThroughputMiB)
	if err != nil {
		return err
	}
	return s.update(func(cur *State) error {
		cur.Model = m
		// The time and the I/O spent as another type do not count.
		cur.CreditsAt = time.Now()
		if n, err := cur.WriteIOs(); err == nil {
			cur.LastIOs = n
		}
		return nil
	})
}

// SetCredits sets the gp2 credit bucket (clamped to [0, MaxCredits]),
// applies the limit that follows and saves, under the lock.
func (s *State) SetCredits(c float64) error {
	return s.update(func(cur *State) error {
		cur.Credits = clampCredits(c)
		cur.CreditsAt = time.Now()
		if n, err := cur.WriteIOs(); err == nil {
			cur.LastIOs = n
		}
		return nil
	})
}

// update runs Update and makes s the state that was saved.
func (s *State) update(fn func(*State) error) error {
	ns, err := Update(fn)
	if err != nil {
		return err
	}
	*s = *ns
	return nil
}

func clampCredits(c float64) float64 {
	return min(max(c, 0), MaxCredits)
}

// Limit is what is in force: gp2 gets its burst while it has credits and
// its baseline once they are spent; gp3 and io1 their provisioned IOPS. bps
// is the write throughput limit in bytes per second (0: none).
//
// A gp2 volume bursts only while it holds at least one second of burst
// beyond its baseline (Burst-Baseline credits; 2,900 of 5.4 million for a
// small volume), not merely "more than zero": the controller accounts once a
// second, so a drained volume earning a handful of credits would otherwise
// burst for a whole second, overspend, and flip between burst and baseline.
//
// Both are the model's times the lab's speed (Speed), never below 1 IOPS.
func (s *State) Limit() (iops int, bps int64) {
	iops = s.Model.Baseline()
	if s.Bursting() {
		iops = s.Model.Burst()
	}
	k := s.Speed()
	return max(int(math.Round(float64(iops)*k)), 1), int64(float64(s.Model.ThroughputMiB) * MiB * k)
}

// Bursting says whether a gp2 volume has the credits to burst now.
func (s *State) Bursting() bool {
	if s.Model.Type != "gp2" {
		return false
	}
	b, burst := s.Model.Baseline(), s.Model.Burst()
	return s.Credits > 0 && s.Credits >= float64(burst-b)
}

// Speed is the fraction of the model's limits the lab runs at: 1 unless it
// was built with a scale.
func (s *State) Speed() float64 {
	if s.Scale <= 0 {
		return 1
	}
	return s.Scale
}

// CheckScale says why a lab cannot run at scale k, or nil.
func CheckScale(k float64) error {
	if !(k > 0 && k <= 1) {
		return fmt.Errorf("lab: scale %g: must be above 0 and at most 1 (0.25 runs every volume at a quarter of its IOPS and throughput)", k)
	}
	return nil
}

// Apply writes Limit to the kernel: on cgroup v1 the lab cgroup's
// blkio.throttle.write_iops_device and write_bps_device ("MAJ:MIN N", 0
// removes the rule), on v2 its io.max ("MAJ:MIN wiops=N wbps=M").
func (s *State) Apply() error {
	iops, bps := s.Limit()
	return s.throttle(iops, bps)
}

func (s *State) throttle(iops int, bps int64) error {
	switch s.CgroupVersion {
	case 1:
		if err := writeFile(filepath.Join(s.Cgroup, "blkio.throttle.write_iops_device"), fmt.Sprintf("%s %d", s.Dev, iops)); err != nil {
			return err
		}
		return writeFile(filepath.Join(s.Cgroup, "blkio.throttle.write_bps_device"), fmt.Sprintf("%s %d", s.Dev, bps))
	case 2:
		v := func(n int64) string {
			if n <= 0 {
				return "max"
			}
			return strconv.FormatInt(n, 10)
		}
		return writeFile(filepath.Join(s.Cgroup, "io.max"), fmt.Sprintf("%s wiops=%s wbps=%s", s.Dev, v(int64(iops)), v(bps)))
	}
	return fmt.Errorf("lab: unknown cgroup version %d", s.CgroupVersion)
}

// Enter puts a process into the lab cgroup, so that its writes to the lab
// filesystem are throttled like the emulated volume's.
func (s *State) Enter(pid int) error {
	return writeFile(filepath.Join(s.Cgroup, "cgroup.procs"), strconv.Itoa(pid))
}

// EnterIfOn puts process pid into the lab cgroup when dir is on the lab's
// emulated volume, so that it measures the emulation, and says whether it
// did. A lab that is down is no error: there is nothing to enter.
func EnterIfOn(dir string, pid int) (bool, error) {
	if dir == "" {
		return false, nil
	}
	s, err := Current()
	if s == nil || err != nil {
		return false, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil || !s.Contains(abs) {
		return false, nil
	}
	if err := s.Enter(pid); err != nil {
		return false, fmt.Errorf("join the lab's cgroup %s: %v", s.Cgroup, err)
	}
	return true, nil
}

// Contains says whether dir is within the lab filesystem: on the lab's
// device when dir exists, under its mount point otherwise.
func (s *State) Contains(dir string) bool {
	var st syscall.Stat_t
	if syscall.Stat(dir, &st) == nil && s.Dev != "" {
		maj, min := devNumbers(uint64(st.Dev))
		return fmt.Sprintf("%d:%d", maj, min) == s.Dev
	}
	abs, err := filepath.Abs(dir)
	if err != nil || s.Mount == "" {
		return false
	}
	return abs == s.Mount || strings.HasPrefix(abs, s.Mount+string(filepath.Separator))
}

// devNumbers splits a Linux dev_t.
func devNumbers(dev uint64) (major, minor uint64) {
	major = (dev>>8)&0xfff | (dev>>32)&^0xfff
	minor = dev&0xff | (dev>>12)&^0xff
	return major, minor
}

func writeFile(path, content string) error {
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		return fmt.Errorf("lab: write %q to %s: %w", content, path, err)
	}
	return nil
}
