package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfbisect/perfbisect/internal/testutil"
	"github.com/perfbisect/perfbisect/internal/testutil/hosttest"
	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/host"
	"github.com/perfbisect/perfbisect/probe/knob"
	"github.com/perfbisect/perfbisect/session/playbook"
)

func quickPlaybook(t *testing.T) *playbook.Playbook {
	t.Helper()
	data, err := os.ReadFile("testdata/quick.yaml")
	if err != nil {
		t.Fatal(err)
	}
	pb, err := playbook.Parse("testdata/quick.yaml", data, nil)
	if err != nil {
		t.Fatalf("quick playbook: %v", err)
	}
	return pb
}

// walk records everything a runner says.
type walk struct {
	events  []Event
	asked   [][]knob.Change
	decline bool
}

func (w *walk) emit(e Event) { w.events = append(w.events, e) }

func (w *walk) confirm(_ context.Context, _ *playbook.Step, ch []knob.Change) (bool, error) {
	w.asked = append(w.asked, ch)
	return !w.decline, nil
}

func (w *walk) of(typ Type, step string) []Event {
	var out []Event
	for _, e := range w.events {
		if e.Type == typ && (step == "" || e.Step == step) {
			out = append(out, e)
		}
	}
	return out
}

// regression gives r a measured reproduce step of those seconds, as if it
// had run, for a test of a later step.
func regression(r *Runner, ss []probe.Sample) {
	r.emit("reproduce", &StepStart{Title: "reproduce", Reproduce: true})
	for i := range ss {
		r.emit("reproduce", &ss[i])
	}
	r.emit("reproduce", &StepEnd{State: StateMeasured})
}

func newTestRunner(t *testing.T, w *walk, pb *playbook.Playbook) *Runner {
	t.Helper()
	spec := pb.Workload
	spec.Dir = filepath.Join(t.TempDir(), "data")
	r, err := NewRunner(Options{Playbook: pb, Host: hosttest.Local(t), Workload: spec, Emit: w.emit, Confirm: w.confirm, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestWalkDiskTmpfsFsync(t *testing.T) {
	testutil.RequireRoot(t)
	w := &walk{}
	pb := quickPlaybook(t)
	r := newTestRunner(t, w, pb)
	conclusion, err := r.Run(context.Background())
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	want := map[string]State{"reproduce": StateMeasured, "tmpfs": StateGone, "fsync": StateGone, "volume": StateUnavailable}
	var got []string
	for _, e := range w.of(TypeStepEnd, "") {
		got = append(got, e.Step)
		s, _ := r.Walk().Step(e.Step)
		if s.State != want[s.ID] {
			t.Errorf("step %s: %s (%s), want %s", s.ID, s.State, s.Reason, want[s.ID])
		}
	}
	if strings.Join(got, " ") != "reproduce tmpfs fsync volume" {
		t.Errorf("walked %v", got)
	}
	if !strings.HasPrefix(conclusion, "No reference was given, so there is no regression to bisect") ||
		!strings.Contains(conclusion, "Not known: whether the volume type limits the flushes (volume unavailable") ||
		!strings.Contains(conclusion, "No fix is prescribed") {
		t.Errorf("conclusion %q, want no regression, the volume step not known, and no fix", conclusion)
	}
	// The host was asked before each change, and the tmpfs was put back.
	if len(w.asked) != 2 || w.asked[0][0].Knob != "tmpfs" || !strings.Contains(strings.Join(w.asked[0][0].Do, " "), "mount") {
		t.Errorf("asked %+v", w.asked)
	}
	if left := hosttest.MountsUnder(t, r.opt.Host.(*host.Local).Env.StateDir); len(left) > 0 {
		t.Errorf("mounts left: %v", left)
	}
	if n := len(w.of(TypeKnob, "tmpfs")); n != 3 { // planned, applied, reverted
		t.Errorf("%d knob events for tmpfs, want planned, applied, reverted", n)
	}
	if v := w.of(TypeVerdict, "tmpfs"); len(v) != 1 || v[0].Data.(*Verdict).Ratio > 0.5 {
		t.Errorf("tmpfs verdict %+v, want one against the regression, far faster", v)
	}
	if n := len(w.of(TypeSample, "reproduce")); n != 6 {
		t.Errorf("%d samples in the reproduce step, want 6 (no reference: no extension)", n)
	}
	ends := w.of(TypeSessionEnd, "")
	if len(ends) != 1 || ends[0].Data.(*SessionEnd).Ended != EndConcluded {
		t.Errorf("session end %+v", ends)
	}
}

func TestDeclinedStepIsSkippedAndChangesNothing(t *testing.T) {
	w := &walk{decline: true}
	pb := quickPlaybook(t)
	r := newTestRunner(t, w, pb)
	res := r.Step(context.Background(), &pb.Steps[1])
	if res.State != StateSkipped || res.Decision.Next != "volume" {
		t.Errorf("declined tmpfs: %s, next %q; want skipped, then the unavailable target", res.State, res.Decision.Next)
	}
	for _, e := range w.of(TypeKnob, "") {
		if a := e.Data.(*KnobEvent).Action; a != KnobPlanned {
			t.Errorf("knob %s after the operator declined", a)
		}
	}
	if n := len(w.of(TypeSample, "")); n != 0 {
		t.Errorf("%d samples measured after a decline", n)
	}
}

func TestStepPutsKnobsBackOnCancel(t *testing.T) {
	testutil.RequireRoot(t)
	pb := quickPlaybook(t)
	ctx, cancel := context.WithCancel(context.Background())
	w := &walk{}
	var r *Runner
	emit := func(e Event) {
		w.emit(e)
		if e.Type == TypeSample && e.Step == "tmpfs" {
			cancel() // Ctrl-C in the middle of the tmpfs step
		}
	}
	spec := pb.Workload
	spec.Dir = filepath.Join(t.TempDir(), "data")
	h := hosttest.Local(t)
	r, err := NewRunner(Options{Playbook: pb, Host: h, Workload: spec, Emit: emit})
	if err != nil {
		t.Fatal(err)
	}
	regression(r, []probe.Sample{{Sec: 1, OpsPerS: 1, P50Ms: 1}})
	res := r.Step(ctx, &pb.Steps[1])
	if res.State != StateInterrupted {
		t.Errorf("state %s (%s), want interrupted", res.State, res.Reason)
	}
	var actions []string
	for _, e := range w.of(TypeKnob, "tmpfs") {
		actions = append(actions, string(e.Data.(*KnobEvent).Action))
	}
	if strings.Join(actions, " ") != "planned applied reverted" {
		t.Errorf("knob events %v", actions)
	}
	if left := hosttest.MountsUnder(t, h.Env.StateDir); len(left) > 0 {
		t.Errorf("mounts left after the cancel: %v", left)
	}
}

func TestStepPutsKnobsBackOnPanic(t *testing.T) {
	testutil.RequireRoot(t)
	pb := quickPlaybook(t)
	h := hosttest.Local(t)
	w := &walk{}
	spec := pb.Workload
	spec.Dir = filepath.Join(t.TempDir(), "data")
	boom := errors.New("boom")
	r, err := NewRunner(Options{Playbook: pb, Host: h, Workload: spec, Emit: func(e Event) {
		w.emit(e)
		if e.Type == TypeSample {
			panic(boom)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if p := recover(); p != boom {
				t.Errorf("recovered %v, want the panic to go on after the revert", p)
			}
		}()
		r.Step(context.Background(), &pb.Steps[1])
	}()
	if left := hosttest.MountsUnder(t, h.Env.StateDir); len(left) > 0 {
		t.Errorf("mounts left after a panic: %v", left)
	}
	if n := len(w.of(TypeKnob, "tmpfs")); n != 3 {
		t.Errorf("%d knob events, want planned, applied, reverted", n)
	}
}

func TestWorkloadFailureEndsTheStepNotTheWalk(t *testing.T) {
	pb := quickPlaybook(t)
	w := &walk{}
	r := newTestRunner(t, w, pb)
	r.opt.Workload.Dir = testutil.Tmpfs(t, "1m") // the 8 MiB file cannot be preallocated
	regression(r, []probe.Sample{{Sec: 1, OpsPerS: 1, P50Ms: 1}})
	res := r.Step(context.Background(), &pb.Steps[2])
	if res.State != StateFailed || !strings.Contains(res.Reason, "no space left on device") {
		t.Errorf("state %s (%s), want failed with the reason", res.State, res.Reason)
	}
	if res.Decision.Playbook != "the writes themselves" {
		t.Errorf("decision %+v, want the playbook's way on (the persists target)", res.Decision)
	}
	if n := len(w.of(TypeError, "fsync")); n != 1 {
		t.Errorf("%d error events, want 1", n)
	}
	// The fsync knob is workload-level: it was applied and put back.
	if n := len(w.of(TypeKnob, "fsync")); n != 3 {
		t.Errorf("%d knob events, want planned, applied, reverted", n)
	}
}

func TestDryRunChangesNothing(t *testing.T) {
	w := &walk{}
	pb := quickPlaybook(t)
	spec := pb.Workload
	spec.Dir = t.TempDir()
	h := hosttest.Local(t)
	r, err := NewRunner(Options{Playbook: pb, Host: h, Workload: spec, Emit: w.emit, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(w.of(TypeSample, "")); n != 0 {
		t.Errorf("a dry run measured %d seconds", n)
	}
	for _, e := range w.of(TypeKnob, "") {
		if a := e.Data.(*KnobEvent).Action; a != KnobPlanned && a != KnobUnavailable {
			t.Errorf("a dry run did %s", a)
		}
	}
	if n := len(w.of(TypeStepEnd, "")); n != len(pb.Steps) {
		t.Errorf("%d steps described, want all %d", n, len(pb.Steps))
	}
	if left := testutil.Entries(t, h.Env.StateDir); len(left) != 0 {
		t.Errorf("a dry run left %v", left)
	}
}

// TestKnobsPutBackBeforeTheStepEnds: when a step's second knob fails to
// apply, its first is put back before the step's end is recorded, so a log
// cut right after step_end never shows a knob left applied.
func TestKnobsPutBackBeforeTheStepEnds(t *testing.T) {
	testutil.RequireRoot(t)
	yaml := `name: two
description: two knobs, the second fails
workload: {workload: fsync, bs: 4k, file_size: 8MiB, sync: fdatasync}
duration: 6s
warmup: 1s
steps:
  - id: both
    title: tmpfs, then a knob that fails
    hypothesis: h
    reproduce: true
    knobs:
      - knob: tmpfs
        with: {size: 64m}
      - knob: shell
        with: {apply: "exit 3", revert: "true"}
    persists: {conclude: x}
    gone: {conclude: y}
`
	pb, err := playbook.Parse("two.yaml", []byte(yaml), nil)
	if err != nil {
		t.Fatal(err)
	}
	w := &walk{}
	r := newTestRunner(t, w, pb)
	if res := r.Step(context.Background(), &pb.Steps[0]); res.State != StateFailed {
		t.Fatalf("state %s, want failed", res.State)
	}
	reverted, ended := -1, -1
	for i, e := range w.events {
		if k, ok := e.Data.(*KnobEvent); ok && k.Change.Knob == "tmpfs" && k.Action == KnobReverted {
			reverted = i
		}
		if e.Type == TypeStepEnd {
			ended = i
		}
	}
	if reverted < 0 || ended < 0 || reverted > ended {
		t.Errorf("tmpfs put back at event %d, step end at %d: want the revert first", reverted, ended)
	}
}
