package session

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/testutil/hosttest"
	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/knob"
	"github.com/perfbisect/perfbisect/session/playbook"
)

// A step made by hand measured on another machine: its samples come from a
// file and are judged as any step's; this host is not touched.

func byHandPlaybook(t *testing.T) *playbook.Playbook {
	t.Helper()
	pb, err := playbook.Load("testdata/byhand.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return pb
}

// probeOutput writes what `perfbisect probe --json` prints: its seconds,
// then its summary, which names the workload.
func probeOutput(t *testing.T, ss []probe.Sample, w probe.Spec) string {
	t.Helper()
	at := time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC)
	var evs []Event
	for i := range ss {
		evs = append(evs, NewEvent(at, "", &ss[i]))
	}
	evs = append(evs, NewEvent(at, "", &probe.Summary{DurationS: float64(len(ss)), Workload: w, Ended: probe.EndCompleted}))
	path := filepath.Join(t.TempDir(), "bare.jsonl")
	if err := WriteLogFile(path, evs); err != nil {
		t.Fatal(err)
	}
	return path
}

// byHandRunner walks the byhand playbook on h against a reference in
// memory, its reproduce step measured on disk.
func byHandRunner(t *testing.T, h *hosttest.Fake, op knob.Operator, results map[string]*Result) (*Runner, *walk) {
	t.Helper()
	pb := byHandPlaybook(t)
	w := &walk{}
	r, err := NewRunner(Options{Playbook: pb, Host: h, Workload: pb.Workload, Emit: w.emit, Confirm: w.confirm,
		Operator: op, Results: results, Reference: hosttest.Seconds(12, memoryMs), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	regression(r, hosttest.Seconds(6, diskMs))
	return r, w
}

func TestResultJudgedAsAnyStep(t *testing.T) {
	spec := byHandPlaybook(t).Workload
	other := spec
	other.Sync, other.Threads = probe.SyncNone, 4
	uu := map[string]struct {
		file    func(t *testing.T) string
		want    State
		differs string
	}{
		// The bare host writes as fast as the reference: the cluster it left caused it.
		"gone":     {func(t *testing.T) string { return probeOutput(t, hosttest.Seconds(8, memoryMs), spec) }, StateGone, ""},
		"persists": {func(t *testing.T) string { return probeOutput(t, hosttest.Seconds(8, diskMs), spec) }, StatePersists, ""},
		"another workload": {func(t *testing.T) string { return probeOutput(t, hosttest.Seconds(8, memoryMs), other) }, StateGone,
			"sync mode none, not fdatasync; threads 4, not 1"},
		"saved sysbench output": {func(*testing.T) string { return "../probe/parse/testdata/sysbench-1.0.20-oltp_write_only.txt" }, "",
			"workload sysbench, not fsync"},
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) {
			file := u.file(t)
			res, err := LoadResult(file)
			if err != nil {
				t.Fatal(err)
			}
			h := fakeHost()
			r, w := byHandRunner(t, h, nil, map[string]*Result{"bare": res})
			got := r.Step(context.Background(), &r.opt.Playbook.Steps[1])
			if u.want != "" && got.State != u.want {
				t.Errorf("state %s (%s), want %s", got.State, got.Reason, u.want)
			}
			if calls := h.Calls(); len(calls) != 0 || len(w.asked) != 0 {
				t.Errorf("the host was asked %v and the operator %v: a step measured elsewhere changes nothing here", calls, w.asked)
			}
			if len(got.Verdicts) != 2 || len(got.Samples) != len(res.Run.Samples) {
				t.Errorf("%d verdicts on %d s, want 2 on the file's %d", len(got.Verdicts), len(got.Samples), len(res.Run.Samples))
			}
			el := w.of(TypeElsewhere, "bare")
			if len(el) != 1 {
				t.Fatalf("%d elsewhere events, want 1", len(el))
			}
			if e := el[0].Data.(*Elsewhere); e.File != file || e.Seconds != len(res.Run.Samples) || e.Differs != u.differs {
				t.Errorf("elsewhere %+v, want from %s, differing %q", e, file, u.differs)
			}
			notes := w.of(TypeNote, "bare")
			if said := len(notes) == 1 && strings.Contains(notes[0].Data.(*Note).Text, u.differs); said != (u.differs != "") || len(notes) > 1 {
				t.Errorf("notes %+v, want one saying %q only when the workload differs", notes, u.differs)
			}
			// The log says where the seconds came from, read back.
			log := filepath.Join(t.TempDir(), "walk.jsonl")
			if err := WriteLogFile(log, w.events); err != nil {
				t.Fatal(err)
			}
			evs, _, err := ReadLogFile(log)
			if err != nil {
				t.Fatal(err)
			}
			if s, _ := Fold(evs).Step("bare"); s.Elsewhere == nil || *s.Elsewhere != *el[0].Data.(*Elsewhere) || s.State != got.State {
				t.Errorf("replayed step %+v, want the elsewhere event and state %s", s, got.State)
			}
		})
	}
}

// operator is the person at the keyboard: at a step made by hand it says
// what the test says, and it answers every other question yes.
type operator struct {
	res    *Result
	here   bool
	steps  []string // the steps it was asked about
	manual []string // the titles of the knobs' own questions
	after  []int    // how many seconds the runner had emitted at each
	w      *walk
}

func (o *operator) ManualStep(_ context.Context, step *playbook.Step, changes []knob.Change) (*Result, bool, error) {
	o.steps = append(o.steps, step.ID+": "+strings.Join(changes[0].Do, "; "))
	return o.res, o.here, nil
}

func (o *operator) Manual(_ context.Context, title string, _ []string) (bool, error) {
	o.manual = append(o.manual, title)
	o.after = append(o.after, len(o.w.of(TypeSample, "bare")))
	return true, nil
}

func TestManualStepAnswered(t *testing.T) {
	res, err := LoadResult(probeOutput(t, hosttest.Seconds(8, memoryMs), byHandPlaybook(t).Workload))
	if err != nil {
		t.Fatal(err)
	}
	uu := map[string]struct {
		op    *operator
		want  State
		calls string
	}{
		"elsewhere": {&operator{res: res}, StateGone, "plan manual"},
		"declined":  {&operator{}, StateSkipped, "plan manual"},
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) {
			h := fakeHost()
			h.Knobs["manual"] = hosttest.FakeKnob{Change: knob.Change{Knob: "manual", Do: []string{"stop the cluster's agents"}}}
			r, w := byHandRunner(t, h, u.op, nil)
			u.op.w = w
			got := r.Step(context.Background(), &r.opt.Playbook.Steps[1])
			if got.State != u.want {
				t.Errorf("state %s (%s), want %s", got.State, got.Reason, u.want)
			}
			if c := strings.Join(h.Calls(), " "); c != u.calls || len(w.asked) != 0 {
				t.Errorf("host calls %q, confirm asked %v: want %q and no confirmation (the instructions are the question)", c, w.asked, u.calls)
			}
			if len(u.op.steps) != 1 || u.op.steps[0] != "bare: stop the cluster's agents" || len(u.op.manual) != 0 {
				t.Errorf("asked %v, then %v; want the step's instructions once", u.op.steps, u.op.manual)
			}
		})
	}
}

// Made here: the real manual knob's own question is answered by the one
// the step asked, and the undo is asked once the workload has run.
func TestManualStepMadeHere(t *testing.T) {
	pb := byHandPlaybook(t)
	w := &walk{}
	op := &operator{here: true, w: w}
	spec := pb.Workload
	spec.Dir = filepath.Join(t.TempDir(), "data")
	r, err := NewRunner(Options{Playbook: pb, Host: hosttest.Local(t), Workload: spec, Emit: w.emit, Confirm: w.confirm,
		Operator: op, Reference: hosttest.Seconds(12, memoryMs), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	regression(r, hosttest.Seconds(6, diskMs))
	got := r.Step(context.Background(), &pb.Steps[1])
	if got.State == StateSkipped || got.State == StateUnavailable || got.State == StateFailed || len(got.Samples) < 5 {
		t.Fatalf("state %s (%s) after %d s, want the workload run and judged", got.State, got.Reason, len(got.Samples))
	}
	if len(op.steps) != 1 || len(w.asked) != 0 {
		t.Errorf("asked %v at the step and confirm %v: want the step's question alone", op.steps, w.asked)
	}
	if len(op.manual) != 1 || op.manual[0] != "Put back the change made by hand" || op.after[0] != len(got.Samples) {
		t.Errorf("the knob asked %v after %v s, want the undo alone after all %d s", op.manual, op.after, len(got.Samples))
	}
	if got := knobActions(w, "bare"); got != "planned applied reverted" {
		t.Errorf("knob events %q, want planned applied reverted", got)
	}
}

func TestResultForAStepNotMadeByHand(t *testing.T) {
	pb := byHandPlaybook(t)
	for _, step := range []string{"reproduce", "nope"} {
		err := Options{Playbook: pb, Host: fakeHost(), Results: map[string]*Result{step: {}}}.Validate()
		if err == nil || !strings.Contains(err.Error(), "--result "+step) || !strings.Contains(err.Error(), "those made by hand are bare") {
			t.Errorf("--result %s: %v, want an error naming the steps made by hand", step, err)
		}
	}
}

// Without an operator or a result, a step made by hand cannot run, as
// before: the walk goes on by the playbook's unavailable branch.
func TestManualStepWithNobodyToAsk(t *testing.T) {
	pb := byHandPlaybook(t)
	w := &walk{}
	r, err := NewRunner(Options{Playbook: pb, Host: hosttest.Local(t), Workload: pb.Workload, Emit: w.emit, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	regression(r, hosttest.Seconds(6, diskMs))
	got := r.Step(context.Background(), &pb.Steps[1])
	if got.State != StateUnavailable || !strings.Contains(got.Reason, "nobody to ask") || got.Decision.Playbook != "the cluster could not be left" {
		t.Errorf("state %s (%s), decision %+v; want unavailable, by the playbook's branch", got.State, got.Reason, got.Decision)
	}
}
