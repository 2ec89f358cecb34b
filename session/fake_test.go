package session

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/testutil/hosttest"
	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/host"
	"github.com/perfbisect/perfbisect/probe/knob"
)

// The runner's every way out of a step, on a scripted host: milliseconds,
// no root. The tests in runner_test.go prove the same on the real host.

const (
	diskMs   = 1.3 // the regression
	memoryMs = 0.1
)

func fakeHost() *hosttest.Fake {
	return &hosttest.Fake{Knobs: map[string]hosttest.FakeKnob{
		"tmpfs": {Change: knob.Change{Knob: "tmpfs", Do: []string{"mount -t tmpfs tmpfs /run/perfbisect/t"}, Undo: []string{"umount /run/perfbisect/t"}}},
		"fsync": {Workload: func(s probe.Spec) probe.Spec { s.Sync = probe.SyncNone; return s }},
	}}
}

func fakeRunner(t *testing.T, w *walk, h *hosttest.Fake) *Runner {
	t.Helper()
	pb := quickPlaybook(t)
	spec := pb.Workload
	spec.Dir = "/data"
	r, err := NewRunner(Options{Playbook: pb, Host: h, Workload: spec, Emit: w.emit, Confirm: w.confirm, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func knobActions(w *walk, step string) string {
	var out []string
	for _, e := range w.of(TypeKnob, step) {
		out = append(out, string(e.Data.(*KnobEvent).Action))
	}
	return strings.Join(out, " ")
}

func TestFakeWalkConcludes(t *testing.T) {
	h := fakeHost()
	h.HostFacts = host.Facts{Hostname: "db-7", Kernel: "6.8.0", DataDir: "/data", Device: "nvme1n1"}
	h.Runs = []hosttest.FakeRun{
		{Samples: hosttest.Seconds(6, diskMs)},
		{Samples: hosttest.Seconds(6, memoryMs)},
		{Samples: hosttest.Seconds(6, memoryMs)},
	}
	w := &walk{}
	r := fakeRunner(t, w, h)
	conclusion, err := r.Run(context.Background())
	// No reference: where the time goes, against this host's own
	// baseline, and no fix (the playbook's words are kept beside it).
	if err != nil || conclusion != fakeNoReference {
		t.Fatalf("Run: %q, %v\nwant %q", conclusion, err, fakeNoReference)
	}
	if d := r.Walk().Steps[3].Decision; d.Playbook != "flush latency of this disk; the volume type could not be tried here" {
		t.Errorf("the decision's playbook words %q, want the unavailable branch's", d.Playbook)
	}
	want := "plan tmpfs apply tmpfs run revert tmpfs plan fsync apply fsync run revert fsync plan volume-type"
	if got := strings.Join(h.Calls()[1:], " "); got != want { // the first run is the reproduce step's
		t.Errorf("host asked %q, want %q", got, want)
	}
	// Live and replay are one fold: the runner's walk is the one its
	// session log makes, written and read back.
	log := filepath.Join(t.TempDir(), "walk.jsonl")
	if err := WriteLogFile(log, w.events); err != nil {
		t.Fatal(err)
	}
	evs, bad, err := ReadLogFile(log)
	if err != nil || len(bad) > 0 {
		t.Fatalf("read the log back: %v %v", err, bad)
	}
	replay := Fold(evs)
	if got, want := summarize(r.Walk()), summarize(replay); got != want {
		t.Errorf("the runner's walk:\n%s\nthe replay of its log:\n%s", got, want)
	}
	for _, s := range r.Walk().Steps {
		if rs, _ := replay.Step(s.ID); len(rs.Samples) != len(s.Samples) || rs.PlannedS != s.PlannedS || len(rs.Changes) != len(s.Changes) {
			t.Errorf("step %s: live %d s, planned %g, %d knob events; replayed %d s, planned %g, %d", s.ID,
				len(s.Samples), s.PlannedS, len(s.Changes), len(rs.Samples), rs.PlannedS, len(rs.Changes))
		}
	}
	if got := summarize(r.Walk()); got != "reproduce measured -> tmpfs; tmpfs gone -> fsync; fsync gone -> volume; volume unavailable => "+fakeNoReference {
		t.Errorf("walk: %s", got)
	}
	if got := r.Walk().Host; got == nil || *got != h.HostFacts {
		t.Errorf("the walk's host %+v, want the host's facts %+v", got, h.HostFacts)
	}
}

// summarize is a walk in one line: each step's state and where it went.
func summarize(w *Walk) string {
	var parts []string
	for _, s := range w.Steps {
		p := s.ID + " " + string(s.State)
		if d := s.Decision; d != nil {
			p += map[bool]string{true: " => " + d.Conclusion, false: " -> " + d.Next}[d.Conclusion != ""]
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "; ")
}

func TestFakeCancelPutsTheKnobBack(t *testing.T) {
	h := fakeHost()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h.Runs = []hosttest.FakeRun{{Samples: hosttest.Seconds(6, memoryMs), Hold: true, Then: func(sec int) {
		if sec == 3 {
			cancel() // Ctrl-C in the middle of the step
		}
	}}}
	w := &walk{}
	r := fakeRunner(t, w, h)
	regression(r, hosttest.Seconds(6, diskMs))
	res := r.Step(ctx, &r.opt.Playbook.Steps[1])
	if res.State != StateInterrupted {
		t.Errorf("state %s (%s), want interrupted", res.State, res.Reason)
	}
	if got := knobActions(w, "tmpfs"); got != "planned applied reverted" {
		t.Errorf("knob events %q, want planned applied reverted", got)
	}
	if n := len(res.Samples); n < 3 {
		t.Errorf("%d seconds kept, want at least the 3 before the cancel", n)
	}
	if got := h.Calls(); got[len(got)-1] != "revert tmpfs" {
		t.Errorf("calls %v, want the revert last", got)
	}
}

func TestFakePanicPutsTheKnobBack(t *testing.T) {
	h := fakeHost()
	h.Runs = []hosttest.FakeRun{{Samples: hosttest.Seconds(6, memoryMs)}}
	w := &walk{}
	boom := errors.New("boom")
	r := fakeRunner(t, w, h)
	regression(r, hosttest.Seconds(6, diskMs))
	r.opt.Emit = func(e Event) {
		w.emit(e)
		if e.Type == TypeSample {
			panic(boom)
		}
	}
	func() {
		defer func() {
			if p := recover(); p != boom {
				t.Errorf("recovered %v, want the panic to go on after the revert", p)
			}
		}()
		r.Step(context.Background(), &r.opt.Playbook.Steps[1])
	}()
	if got := knobActions(w, "tmpfs"); got != "planned applied reverted" {
		t.Errorf("knob events %q, want planned applied reverted", got)
	}
}

func TestFakeRevertFailsLoudly(t *testing.T) {
	h := fakeHost()
	k := h.Knobs["tmpfs"]
	k.RevertErr = errors.New("umount /run/perfbisect/t: target is busy")
	h.Knobs["tmpfs"] = k
	h.Runs = []hosttest.FakeRun{{Samples: hosttest.Seconds(6, memoryMs)}}
	r, w, _ := tmpfsStep(t, h)
	if got := knobActions(w, "tmpfs"); got != "planned applied revert_failed" {
		t.Errorf("knob events %q, want planned applied revert_failed", got)
	}
	errs := w.of(TypeError, "tmpfs")
	if len(errs) != 1 || !strings.Contains(errs[0].Data.(*ErrorEvent).Message, "REVERT FAILED for tmpfs: umount /run/perfbisect/t: target is busy") {
		t.Errorf("error events %+v, want the failed revert said loudly", errs)
	}
	if !r.Walk().RevertFailed() {
		t.Error("the walk does not know a revert failed")
	}
}

// A revert that fails ends the walk: fsync, the step the playbook goes to
// next, never runs on a host left changed, and the session ends failed
// saying what is left and how to undo it.
func TestFakeRevertFailureEndsTheWalk(t *testing.T) {
	h := fakeHost()
	k := h.Knobs["tmpfs"]
	k.RevertErr = errors.New("umount /run/perfbisect/t: target is busy")
	h.Knobs["tmpfs"] = k
	h.Runs = []hosttest.FakeRun{{Samples: hosttest.Seconds(6, diskMs)}, {Samples: hosttest.Seconds(6, memoryMs)}}
	w := &walk{}
	r := fakeRunner(t, w, h)
	conclusion, err := r.Run(context.Background())
	if err == nil || conclusion != "" {
		t.Fatalf("Run: %q, %v; want no conclusion and an error", conclusion, err)
	}
	if got, want := strings.Join(h.Calls(), " "), "run plan tmpfs apply tmpfs run revert tmpfs"; got != want {
		t.Errorf("host asked %q, want %q: nothing after the failed revert", got, want)
	}
	end := r.Walk().End
	for _, want := range []string{"REVERT FAILED in step tmpfs", "target is busy", "put it back by hand: umount /run/perfbisect/t", "walk stops"} {
		if end == nil || end.Ended != EndFailed || !strings.Contains(end.Error, want) {
			t.Errorf("session end %+v, want failed saying %q", end, want)
		}
	}
	if got := summarize(r.Walk()); got != "reproduce measured -> tmpfs; tmpfs gone -> ; fsync pending; volume pending" {
		t.Errorf("walk: %s; want tmpfs to lead nowhere", got)
	}
	if c := r.Walk().Conclusion(); c != "" {
		t.Errorf("conclusion %q drawn on a host left changed", c)
	}
}

func TestFakeApplyFailurePutsBackWhatWasApplied(t *testing.T) {
	h := fakeHost()
	h.Knobs["shell"] = hosttest.FakeKnob{ApplyErr: errors.New("exit status 3")}
	pb := quickPlaybook(t)
	pb.Steps[1].Knobs = append(pb.Steps[1].Knobs, knob.Use{Knob: "shell"})
	w := &walk{}
	r := fakeRunner(t, w, h)
	r.opt.Playbook = pb
	res := r.Step(context.Background(), &pb.Steps[1])
	if res.State != StateFailed || !strings.Contains(res.Reason, "apply shell: exit status 3") {
		t.Errorf("state %s (%s), want failed with the reason", res.State, res.Reason)
	}
	if got, want := h.Calls(), []string{"plan tmpfs", "plan shell", "apply tmpfs", "apply shell", "revert tmpfs"}; !reflect.DeepEqual(got, want) {
		t.Errorf("calls %v, want %v", got, want)
	}
	reverted, ended := -1, -1
	for i, e := range w.events {
		if k, ok := e.Data.(*KnobEvent); ok && k.Action == KnobReverted {
			reverted = i
		}
		if e.Type == TypeStepEnd {
			ended = i
		}
	}
	if reverted < 0 || reverted > ended {
		t.Errorf("tmpfs put back at event %d, the step's end at %d: want the revert first", reverted, ended)
	}
}

// tmpfsStep runs the playbook's tmpfs step on h, after a reproduce step
// measured on disk.
func tmpfsStep(t *testing.T, h *hosttest.Fake) (*Runner, *walk, StepState) {
	t.Helper()
	w := &walk{}
	r := fakeRunner(t, w, h)
	regression(r, hosttest.Seconds(6, diskMs))
	return r, w, r.Step(context.Background(), &r.opt.Playbook.Steps[1])
}

// failedOn checks that the tmpfs step failed for reason, with one error
// event that says action, and that the walk goes on to volume, as the
// playbook goes when tmpfs cannot be tried.
func failedOn(t *testing.T, w *walk, res StepState, reason, action string) {
	t.Helper()
	if res.State != StateFailed || res.Reason != reason {
		t.Errorf("state %s (%s), want failed: %s", res.State, res.Reason, reason)
	}
	if errs := w.of(TypeError, "tmpfs"); len(errs) != 1 || errs[0].Data.(*ErrorEvent).Action != action {
		t.Errorf("error events %+v, want one saying %q", errs, action)
	}
	if d := res.Decision; d == nil || d.Next != "volume" {
		t.Errorf("decision %+v, want on to volume, as the playbook goes when tmpfs cannot be tried", d)
	}
}

// A knob that cannot say what it would do fails its step before anything
// changes, and the walk goes on as the playbook says.
func TestFakePlanFailureChangesNothing(t *testing.T) {
	h := fakeHost()
	h.Knobs["tmpfs"] = hosttest.FakeKnob{PlanErr: errors.New("/run/perfbisect: read-only file system")}
	_, w, res := tmpfsStep(t, h)
	failedOn(t, w, res, "plan tmpfs: /run/perfbisect: read-only file system", "the step does not run; nothing was changed")
	if got := h.Calls(); !reflect.DeepEqual(got, []string{"plan tmpfs"}) {
		t.Errorf("calls %v, want the plan alone: nothing applied, nothing run", got)
	}
	if len(w.asked) != 0 || knobActions(w, "tmpfs") != "" {
		t.Errorf("asked %v, knob events %q: want no question and no knob event", w.asked, knobActions(w, "tmpfs"))
	}
}

// A workload that fails mid-run fails its step, which keeps the seconds it
// measured; the knob is put back and the walk goes on by the playbook.
func TestFakeRunFailsMidway(t *testing.T) {
	h := fakeHost()
	h.Runs = []hosttest.FakeRun{{Samples: hosttest.Seconds(3, memoryMs), Err: errors.New("workload agent died after 3 s: killed by SIGKILL")}}
	_, w, res := tmpfsStep(t, h)
	failedOn(t, w, res, "workload agent died after 3 s: killed by SIGKILL", "step ended after 3 s; its samples are kept")
	if n := len(res.Samples); n != 3 {
		t.Errorf("%d seconds kept, want the 3 measured", n)
	}
	if got := knobActions(w, "tmpfs"); got != "planned applied reverted" {
		t.Errorf("knob events %q, want planned applied reverted", got)
	}
}

func TestFakeExtendIsRecorded(t *testing.T) {
	h := fakeHost()
	w := &walk{}
	var r *Runner
	h.Runs = []hosttest.FakeRun{{Samples: hosttest.Seconds(40, diskMs), Hold: true, Then: func(sec int) {
		if sec == 2 {
			r.Extend(10 * time.Second) // x, pressed in the second second
		}
	}}}
	r = fakeRunner(t, w, h)
	res := r.Step(context.Background(), &r.opt.Playbook.Steps[0])
	ext := w.of(TypeExtend, "reproduce")
	if len(ext) != 1 || *ext[0].Data.(*Extend) != (Extend{BySeconds: 10, PlannedS: 16, MaxS: 16}) {
		t.Fatalf("extend events %+v, want one to 16 s", ext)
	}
	// No reference: nothing to judge against, so it runs as planned, now
	// 16 s (and a second that came while it was being stopped is kept).
	if n := len(res.Samples); n != 16 && n != 17 {
		t.Errorf("%d seconds, want 16", n)
	}
	if res.PlannedS != 16 || res.ExtendedS != 10 {
		t.Errorf("planned %g s, extended by %g s; want 16 and 10", res.PlannedS, res.ExtendedS)
	}
	r.Extend(10 * time.Second) // no step under way: nothing to extend
	if n := len(w.of(TypeExtend, "")); n != 1 {
		t.Errorf("%d extend events after the step ended, want still 1", n)
	}
}

func TestFakeStopsOnceKnown(t *testing.T) {
	h := fakeHost()
	h.Runs = []hosttest.FakeRun{{Samples: hosttest.Seconds(60, memoryMs), Hold: true}}
	_, _, res := tmpfsStep(t, h)
	if res.State != StateGone {
		t.Errorf("state %s (%s), want gone", res.State, res.Reason)
	}
	// 13x faster is known at the planned 6 s, not at the 18 s limit.
	if n := len(res.Samples); n != 6 && n != 7 {
		t.Errorf("%d seconds, want the planned 6", n)
	}
}

func TestFakeReproduceThatCannotRunConcludes(t *testing.T) {
	h := fakeHost()
	h.Runs = []hosttest.FakeRun{{StartErr: errors.New("sysbench: not found")}}
	w := &walk{}
	r := fakeRunner(t, w, h)
	conclusion, err := r.Run(context.Background())
	if err != nil || !strings.Contains(conclusion, "The reproduce step could not be measured (sysbench: not found)") {
		t.Errorf("Run: %q, %v", conclusion, err)
	}
	if s, _ := r.Walk().Step("reproduce"); s.State != StateFailed {
		t.Errorf("reproduce %s, want failed", s.State)
	}
}

const fakeNoReference = "No reference was given, so there is no regression to bisect: this walk shows where this host's write time goes, not what regressed. " +
	"Against this host's own baseline: reproduce measured (the baseline); tmpfs gone (p50 0.08x the baseline's); fsync gone (p50 0.08x the baseline's). " +
	"Not known: whether the volume type limits the flushes (volume unavailable: volume-type is not available here: not scripted on the fake host). " +
	"No fix is prescribed; to bisect a regression, run again with --reference (a known-good run)."
