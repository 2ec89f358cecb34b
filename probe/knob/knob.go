// Package knob owns the changes a step makes to the host: each knob says
// exactly what it will do before doing it, does it, and returns how to put
// it back. Knobs never decide anything about the investigation; the session
// applies them, in order, and reverts them in reverse order.
package knob

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/perfbisect/perfbisect/internal/proc"
	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/journal"
)

// Settings are a knob's settings as a playbook writes them:
//
//	knobs:
//	  - knob: tmpfs
//	    with: {size: 2g}
type Settings map[string]string

// Env is what a knob knows of the place it runs.
type Env struct {
	// StateDir holds what knobs create (mount points, saved state);
	// /run/perfbisect for root, else a directory under /dev/shm.
	StateDir string
	// Root says whether the process may mount, remount and write /sys.
	Root bool
	// Operator answers manual knobs; nil when nobody is there to ask.
	Operator Operator
	// Lab is the emulated EBS volume (perfbisect lab up), nil when there is
	// none. The volume-type and image knobs act on it when the workload's
	// data directory is on it.
	Lab Lab
	// Runner runs the commands knobs need (mount, the shell knob's);
	// nil is proc.Real. Tests put a proctest.Fake here.
	Runner proc.Runner
	// Journal records how to undo a change before the knob makes it, so
	// that a perfbisect killed with the change applied can be put back by
	// another (perfbisect recover); nil records nothing.
	Journal Journal
}

// Journal is where a knob says, before changing the host, what it is about
// to change and how to undo it, as data (see probe/journal). Said again, it
// replaces what was said.
type Journal interface {
	Will(what string, undo ...journal.Action) error
}

// will records in env's journal how to undo what is about to change; the
// change must not be made when it fails.
func will(env Env, what string, undo ...journal.Action) error {
	if env.Journal == nil {
		return nil
	}
	return env.Journal.Will(what, undo...)
}

// Lab is what knobs can do to the lab's emulated volume and image. Every
// change says it is an emulation and returns how to put it back.
type Lab interface {
	// Contains reports whether dir is on the lab's emulated volume.
	Contains(dir string) bool
	// Volume describes the emulated volume now: "gp2 30 GiB (baseline 100 IOPS, burst 3000; 0 credits)".
	Volume() string
	// CheckVolume says why the lab cannot emulate that volume, or nil.
	CheckVolume(typ string, iops, throughputMiB int) error
	// SetVolume changes the emulated volume's type, as ModifyVolume would.
	SetVolume(ctx context.Context, typ string, iops, throughputMiB int) (after string, revert Revert, err error)
	// Image describes the emulated image; ImageChanges what switching to
	// name would change.
	Image() string
	ImageChanges(name string) []string
	SetImage(ctx context.Context, name string) (after string, revert Revert, err error)
	// VolumeUndo and ImageUndo say how to put the volume or the image back
	// as they are now, for the journal.
	VolumeUndo() (journal.Action, error)
	ImageUndo() (journal.Action, error)
}

// onLab is the lab when the workload's data is on it.
func onLab(env Env, w probe.Spec) (Lab, bool) {
	if env.Lab == nil || w.Dir == "" || !env.Lab.Contains(w.Dir) {
		return nil, false
	}
	return env.Lab, true
}

// labAsRoot is the lab for a knob only the lab can turn on this host
// (image, volume-type): the workload's data must be on it, else notLab
// says what the host lacks, and change (what the knob does to the
// emulation) needs root.
func labAsRoot(env Env, w probe.Spec, knob, notLab, change string) (Lab, error) {
	lab, ok := onLab(env, w)
	if !ok {
		return nil, &Unavailable{Knob: knob, Reason: notLab}
	}
	if !env.Root {
		return nil, &Unavailable{Knob: knob, Reason: change + " needs root"}
	}
	return lab, nil
}

// Operator is the person at the keyboard, for knobs only a person can turn
// (boot an older image, move the database to another host).
type Operator interface {
	// Manual shows instructions and waits until the operator says they are
	// done (true) or refuses (false).
	Manual(ctx context.Context, title string, instructions []string) (bool, error)
}

// Change is what a knob will do, said in full before it is done, and
// recorded in the session log with what was found before and left after.
type Change struct {
	Knob     string   `json:"knob"`
	Settings Settings `json:"settings,omitempty"`
	// Do lists each action exactly, as an operator would type it where
	// there is a command for it: "mount -t tmpfs -o size=1g tmpfs /run/perfbisect/tmpfs-1".
	Do []string `json:"do"`
	// Undo lists how each action is put back.
	Undo []string `json:"undo"`
	// Before is the state found before applying (a scheduler, a sysctl's
	// value, mount options); After is the state the change left.
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	// Journal is the crash journal's entry that holds how to undo the
	// change until it is put back (probe/journal): set by the host when the
	// knob changed the host, empty when it changed nothing there.
	Journal string `json:"journal,omitempty"`
}

// Revert puts back what Apply changed. It is safe to call once; it returns
// an error that says what is still changed and what to do by hand.
type Revert func(ctx context.Context) error

// Knob changes one thing on the host for one step.
type Knob interface {
	// Plan inspects the host and says exactly what Apply will do, changing
	// nothing. A knob that cannot work here returns an *Unavailable error.
	Plan(ctx context.Context, env Env, w probe.Spec) (Change, error)
	// Apply makes the change and returns the workload spec to run with (the
	// tmpfs knob moves its Dir, the fsync knob sets its Sync), the Change as
	// made (with Before and After filled in), and how to put it back. When it
	// fails it has already undone whatever it did.
	Apply(ctx context.Context, env Env, w probe.Spec) (probe.Spec, Change, Revert, error)
}

// Unavailable is the error of a knob that cannot work on this host, with
// the reason, so its step is marked unavailable instead of failing the walk.
type Unavailable struct {
	Knob   string
	Reason string
}

func (e *Unavailable) Error() string {
	return fmt.Sprintf("%s is not available here: %s", e.Knob, e.Reason)
}

// Kind is one knob known to perfbisect.
type Kind struct {
	Name    string
	Summary string
	// Settings documents each setting: name -> what it means and its default.
	// They are also the settings the knob takes: New refuses any other
	// before the kind's New sees them.
	Settings map[string]string
	// New parses the settings and returns the knob; a setting it cannot
	// parse is an error naming the setting and what is allowed.
	New func(Settings) (Knob, error)
}

var kinds = map[string]Kind{}

// register adds a kind; each knob's file calls it from init.
func register(k Kind) {
	if _, dup := kinds[k.Name]; dup {
		panic("knob: duplicate kind " + k.Name)
	}
	kinds[k.Name] = k
}

// Kinds lists every knob, by name.
func Kinds() []Kind {
	out := make([]Kind, 0, len(kinds))
	for _, k := range kinds {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Names lists the knob names, for error messages.
func Names() string {
	var names []string
	for _, k := range Kinds() {
		names = append(names, k.Name)
	}
	return strings.Join(names, ", ")
}

// New returns the knob called name with its settings checked.
func New(name string, s Settings) (Knob, error) {
	k, ok := kinds[name]
	if !ok {
		return nil, fmt.Errorf("unknown knob %q (knobs: %s)", name, Names())
	}
	if err := checkSettings(name, s, k.Settings); err != nil {
		return nil, err
	}
	return k.New(s)
}

// Use is a knob and its settings as a playbook step names them.
type Use struct {
	Knob string   `json:"knob" yaml:"knob"`
	With Settings `json:"with,omitempty" yaml:"with,omitempty"`
}

// String is the knob and its settings on one line, in the order of their
// names: "tmpfs size=64m".
func (u Use) String() string {
	parts := []string{u.Knob}
	for _, k := range slices.Sorted(maps.Keys(u.With)) {
		parts = append(parts, k+"="+u.With[k])
	}
	return strings.Join(parts, " ")
}
