// Package journal owns the crash journal: before a knob changes the host it
// records, as data, how to undo the change, in a file of its own synced to
// disk; the entry is removed once the change is put back. A perfbisect
// killed with SIGKILL, or a host that lost power, leaves its entries behind,
// and another process (perfbisect recover) reads them and undoes them. Each
// entry names the process that wrote it (pid and start time), so the entries
// of a session still running are never taken for a dead one's.
package journal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/perfbisect/perfbisect/internal/proc"
)

// DirEnv overrides the journal's directory (tests; a host whose /run is
// not writable).
const DirEnv = "PERFBISECT_JOURNAL"

// Dir is the journal directory under a host's state directory
// (/run/perfbisect/journal for root), unless DirEnv says otherwise.
func Dir(stateDir string) string {
	if d := os.Getenv(DirEnv); d != "" {
		return d
	}
	return filepath.Join(stateDir, "journal")
}

// Entry is one applied change and how to undo it.
type Entry struct {
	// Session is the session log the change belongs to.
	Session string `json:"session,omitempty"`
	// PID and Start (its start time in clock ticks since boot) name the
	// process that made the change, even after the pid is reused.
	PID   int       `json:"pid"`
	Start uint64    `json:"start"`
	Since time.Time `json:"since"`
	Step  string    `json:"step,omitempty"`
	Knob  string    `json:"knob"`
	// What says what is changed, for a person: "tmpfs mounted on /run/perfbisect/tmpfs-123".
	What string `json:"what"`
	// Undo puts it back, in order.
	Undo []Action `json:"undo"`

	file string
}

// File is where the entry is stored.
func (e Entry) File() string { return e.file }

// Live reports whether the process that wrote the entry still runs: its
// entries are its own to put back.
func (e Entry) Live() bool { return sameProcess(e.PID, e.Start) }

// sameProcess reports whether pid is still the process that started at
// start, so that a recycled pid is never taken for it.
func sameProcess(pid int, start uint64) bool {
	if pid <= 0 || !proc.Alive(pid) {
		return false
	}
	st, err := proc.StartTime(pid)
	return err == nil && st == start
}

// Journal is one process's journal: where its entries go and which session
// they belong to. A nil Journal records nothing.
type Journal struct {
	dir     string
	session string
	pid     int
	start   uint64
	seq     atomic.Int64
}

// Open returns the journal of this process in dir, for the session log
// session. It creates nothing until a change is recorded.
func Open(dir, session string) (*Journal, error) {
	pid := os.Getpid()
	start, err := proc.StartTime(pid)
	if err != nil {
		return nil, fmt.Errorf("journal: this process's start time: %v", err)
	}
	if abs, err := filepath.Abs(session); err == nil && session != "" {
		session = abs // recover runs from anywhere
	}
	return &Journal{dir: dir, session: session, pid: pid, start: start}, nil
}

// Pending is the entry of one change about to be made (a knob's Apply): Will
// writes it, Done removes it. A nil Pending records nothing.
type Pending struct {
	j       *Journal
	e       Entry
	mu      sync.Mutex
	file    string
	written string // file, once written
}

// Pending starts the entry of a change that step's knob is about to make.
func (j *Journal) Pending(step, knob string) *Pending {
	if j == nil {
		return nil
	}
	n := j.seq.Add(1)
	return &Pending{j: j, e: Entry{Session: j.session, PID: j.pid, Start: j.start, Step: step, Knob: knob},
		file: filepath.Join(j.dir, fmt.Sprintf("%d-%d-%d.json", j.pid, j.start, n))}
}

// Will records, before the change is made, what it is and how to undo it,
// and syncs the entry and its directory to disk. Called again, it replaces
// the entry (a change that learns more as it goes: a server's pid).
func (p *Pending) Will(what string, undo ...Action) error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.e.What, p.e.Undo = what, undo
	if p.e.Since.IsZero() {
		p.e.Since = time.Now().UTC().Truncate(time.Second)
	}
	if _, err := os.Stat(p.j.dir); err != nil {
		// The journal's directory is new: its own entry in its parent
		// must reach the disk too, or a power cut loses every entry.
		if err := os.MkdirAll(p.j.dir, 0o700); err != nil {
			return fmt.Errorf("journal: %v", err)
		}
		if err := syncDir(filepath.Dir(p.j.dir)); err != nil {
			return fmt.Errorf("journal: %v", err)
		}
	}
	b, err := json.MarshalIndent(p.e, "", "  ")
	if err != nil {
		return fmt.Errorf("journal: %v", err)
	}
	if err := writeSynced(p.file, append(b, '\n')); err != nil {
		return fmt.Errorf("journal: record how to undo %s: %v", what, err)
	}
	p.written = p.file
	return nil
}

// File is where the entry is, once Will has written it; "" before (the
// knob changed nothing on the host).
func (p *Pending) File() string {
	if p == nil {
		return ""
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.written
}

// Done removes the entry: the change is put back (or was never made).
func (p *Pending) Done() error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return remove(p.file)
}

// writeSynced replaces file with b atomically: written to a temporary file
// beside it, synced, renamed over it, and the directory synced, so a crash
// leaves either the old entry or the new one, never a torn one.
func writeSynced(file string, b []byte) error {
	tmp := file + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, file)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return syncDir(filepath.Dir(file))
}

// remove deletes an entry's file and syncs its directory, so a crash after
// a revert does not bring the entry back.
func remove(file string) error {
	err := os.Remove(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err == nil {
		err = syncDir(filepath.Dir(file))
	}
	if err != nil {
		return fmt.Errorf("journal: the change is put back, but its entry stays: %v (remove it by hand: rm %s)", err, file)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// Bad is an entry file that cannot be read: something may still be changed,
// and only a person can tell what.
type Bad struct {
	File string
	Err  error
}

// Read lists the entries in dir, oldest first, and the files that are not
// entries it can read. A missing dir has none. Temporary files of a write
// cut short are not entries (the rename never happened).
func Read(dir string) ([]Entry, []Bad, error) {
	des, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("journal: %v", err)
	}
	var (
		out []Entry
		bad []Bad
	)
	for _, de := range des {
		if de.IsDir() || !strings.HasSuffix(de.Name(), ".json") {
			continue
		}
		file := filepath.Join(dir, de.Name())
		b, err := os.ReadFile(file)
		var e Entry
		if err == nil {
			err = json.Unmarshal(b, &e)
		}
		if err == nil && len(e.Undo) == 0 {
			err = errors.New("it says no way to undo its change")
		}
		if err != nil {
			bad = append(bad, Bad{File: file, Err: err})
			continue
		}
		e.file = file
		out = append(out, e)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Since.Before(out[j].Since) })
	return out, bad, nil
}

// Dead lists the entries in dir whose process is gone: changes nobody will
// put back but recover. Unreadable files count too.
func Dead(dir string) ([]Entry, []Bad, error) {
	all, bad, err := Read(dir)
	var dead []Entry
	for _, e := range all {
		if !e.Live() {
			dead = append(dead, e)
		}
	}
	return dead, bad, err
}

// Recover undoes a dead entry's actions in order and removes it. When an
// action fails, the entry is kept with what is left to do, and the error
// says how to do it by hand.
func Recover(ctx context.Context, e Entry) error {
	if e.Live() {
		return fmt.Errorf("%s: perfbisect pid %d is still running: its changes are its own to put back", e.What, e.PID)
	}
	for i, a := range e.Undo {
		if err := a.Do(ctx); err != nil {
			e.Undo = e.Undo[i:]
			hand := make([]string, len(e.Undo))
			for i, a := range e.Undo {
				hand[i] = a.Hand()
			}
			if b, merr := json.MarshalIndent(e, "", "  "); merr == nil {
				_ = writeSynced(e.file, append(b, '\n')) // keep what is left; the old entry stays if this fails
			}
			return fmt.Errorf("%s: %v (do it by hand: %s; then rm %s)", e.What, err, strings.Join(hand, "; "), e.file)
		}
	}
	return remove(e.file)
}

type stepKey struct{}

// WithStep says, to the host that applies a knob under ctx, which step of
// the walk it belongs to, for the entry.
func WithStep(ctx context.Context, step string) context.Context {
	return context.WithValue(ctx, stepKey{}, step)
}

// StepOf is the step WithStep put in ctx, or "".
func StepOf(ctx context.Context) string {
	s, _ := ctx.Value(stepKey{}).(string)
	return s
}
