package session

import (
	"testing"

	"github.com/perfbisect/perfbisect/probe/knob"
)

// TestNotPutBack: a knob that changed the host (it names its journal
// entry) and has no revert in the log is not put back; one reverted, or
// whose revert failed (said as such), or that changed nothing on the host
// (fsync off is the workload's own setting) is not listed.
func TestNotPutBack(t *testing.T) {
	tmpfs := knob.Change{Knob: "tmpfs", After: "tmpfs size=64MiB at /run/perfbisect/tmpfs-1", Journal: "/run/perfbisect/journal/1.json"}
	sched := knob.Change{Knob: "scheduler", After: "none", Journal: "/run/perfbisect/journal/2.json"}
	sysctl := knob.Change{Knob: "sysctl", After: "vm.dirty_ratio=5", Journal: "/run/perfbisect/journal/3.json"}
	fsync := knob.Change{Knob: "fsync", After: "syncs off"}
	w := NewWalk()
	for _, e := range append(events("a", &StepStart{Title: "a"},
		&KnobEvent{Action: KnobApplied, Change: sysctl},
		&KnobEvent{Action: KnobRevertFailed, Change: sysctl, Error: "EPERM"},
		&StepEnd{State: StatePersists}),
		events("b", &StepStart{Title: "b"},
			&KnobEvent{Action: KnobApplied, Change: fsync},
			&KnobEvent{Action: KnobApplied, Change: tmpfs},
			&KnobEvent{Action: KnobApplied, Change: sched},
			&KnobEvent{Action: KnobReverted, Change: sched})...) {
		w.Apply(e)
	}
	left := w.NotPutBack()
	if len(left) != 1 || left[0].Step != "b" || left[0].Change.Knob != "tmpfs" {
		t.Fatalf("not put back: %+v, want tmpfs of step b alone", left)
	}
	if got, want := left[0].What(), "tmpfs: tmpfs size=64MiB at /run/perfbisect/tmpfs-1"; got != want {
		t.Errorf("What() = %q, want %q", got, want)
	}
	for _, e := range events("b", &KnobEvent{Action: KnobReverted, Change: tmpfs}) {
		w.Apply(e)
	}
	if left := w.NotPutBack(); len(left) != 0 {
		t.Errorf("after the revert: %+v", left)
	}
}
