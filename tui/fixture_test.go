package tui

import (
	"context"
	"os"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/perfbisect/perfbisect/internal/testutil/hosttest"
	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/knob"
	"github.com/perfbisect/perfbisect/session"
	"github.com/perfbisect/perfbisect/session/playbook"
	"github.com/perfbisect/perfbisect/session/verdict"
)

// A fixed walk of testdata/quick.yaml on a made-up host, event by event,
// with fixed times and arithmetic samples, so that what the screen draws
// from it depends on nothing of the machine the tests run on.

// t0 is when the recorded session began.
var t0 = time.Date(2025, 3, 4, 10, 0, 0, 0, time.UTC)

const dataDir = "/var/lib/pg/perfbisect"

// recorder builds an event stream at a clock that the walk moves on.
type recorder struct {
	at     time.Time
	events []session.Event
}

func (r *recorder) wait(d time.Duration) { r.at = r.at.Add(d) }

func (r *recorder) emit(step string, data any) session.Event {
	e := session.NewEvent(r.at, step, data)
	r.events = append(r.events, e)
	return e
}

// sample is second sec of a run whose p50 is about base ms: latencies
// wobble on a 7-second cycle, throughput follows them.
func sample(sec int, base float64) *probe.Sample {
	p50 := base * (1 + float64(sec%7)/20)
	return &probe.Sample{
		Sec: sec, OpsPerS: 1000 / p50, MiBPerS: 1000 / p50 * 4 / 1024,
		P50Ms: p50, P95Ms: p50 * 1.6, P99Ms: p50 * 2.2 * (1 + float64(sec%3)/10), MaxMs: p50 * 4,
	}
}

// p50 of the fixed runs, in ms.
const (
	referenceMs = 0.42
	diskMs      = 1.31 // the regression
	tmpfsMs     = 0.09
	fsyncOffMs  = 0.05
)

func referenceRun(n int) []probe.Sample {
	out := make([]probe.Sample, n)
	for i := range out {
		out[i] = *sample(i+1, referenceMs)
	}
	return out
}

func quickYAML(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile("testdata/quick.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func (r *recorder) start(t testing.TB, pb *playbook.Playbook, yaml string, ref []probe.Sample) {
	spec := pb.Workload
	spec.Dir = dataDir
	r.emit("", &session.SessionStart{Version: "test", Playbook: pb.Name, Source: pb.Source, YAML: yaml,
		Workload: spec, Reference: "reference-before-upgrade.jsonl", ReferenceSamples: ref, Host: "db-7"})
	r.emit("", &session.HostFacts{Hostname: "db-7", Kernel: "6.8.0-1019-aws", CPU: "Intel(R) Xeon(R) Platinum 8259CL", CPUs: 8,
		Root: true, DataDir: dataDir, MountPoint: "/var/lib/pg", Filesystem: "ext4", MountOptions: "rw,relatime",
		Device: "nvme1n1", Scheduler: "mq-deadline"})
}

func (r *recorder) stepStart(step *playbook.Step, seconds float64) {
	r.emit(step.ID, &session.StepStart{Title: step.Title, Hypothesis: step.Hypothesis, Reproduce: step.Reproduce, Knobs: step.Knobs, DurationS: seconds})
}

// samples records seconds from..to of a run at base ms, one a second.
func (r *recorder) samples(step string, from, to int, base float64) {
	for sec := from; sec <= to; sec++ {
		r.wait(time.Second)
		r.emit(step, sample(sec, base))
	}
}

func tmpfsChange() knob.Change {
	dir := "/run/perfbisect/tmpfs-XXXXXX"
	return knob.Change{
		Knob: "tmpfs", Settings: knob.Settings{"size": "64m"},
		Do: []string{"mkdir -p -m 0700 /run/perfbisect", "mkdir -m 0700 " + dir,
			"mount -t tmpfs -o size=64m,nosuid,nodev tmpfs " + dir, "mkdir -m 0700 " + dir + "/data",
			"run the workload with --dir " + dir + "/data"},
		Undo:   []string{"umount " + dir, "rmdir " + dir},
		Before: "ext4 (" + dataDir + " is on /dev/nvme1n1 mounted at /var/lib/pg, rw,discard)",
	}
}

func fsyncChange() knob.Change {
	return knob.Change{Knob: "fsync", Settings: knob.Settings{"mode": "off"},
		Do: []string{"run the workload with --sync none"}, Undo: []string{"run the workload with --sync fdatasync"},
		Before: "fdatasync after every write"}
}

func judged(against session.Against, base, step float64, o verdict.Outcome, why string) *session.Verdict {
	return &session.Verdict{Against: against, Verdict: verdict.Verdict{Metric: "p50_ms", BaseMedian: base, StepMedian: step,
		Ratio: step / base, CILow: step / base * 0.9, CIHigh: step / base * 1.1, Confidence: 0.95, P: 0.002, NBase: 7, NStep: 7,
		Outcome: o, Why: why}}
}

// walkScript is the quick walk as the live screen lives it: events, the
// operator's keys and the driver's messages, in order. Each part stops
// where a golden is taken.
type walkScript struct {
	t   testing.TB
	pb  *playbook.Playbook
	rec *recorder
	m   *Model
}

// newLiveModel is the live screen of pb with a runner that never runs:
// the script plays the runner's part by sending its messages.
func newLiveModel(t testing.TB, pb *playbook.Playbook) *Model {
	t.Helper()
	spec := pb.Workload
	spec.Dir = dataDir
	m, err := NewLive(context.Background(), Options{Options: session.Options{Playbook: pb, Host: hosttest.Local(t), Workload: spec},
		LogPath: "sessions/quick-20250304-1000.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func newWalkScript(t testing.TB) *walkScript {
	pb := quickPlaybook(t)
	return &walkScript{t: t, pb: pb, rec: &recorder{at: t0}, m: newLiveModel(t, pb)}
}

// send is one message through Update; the commands it returns are the
// driver's and the runtime's, which the script stands in for.
func (w *walkScript) send(msg tea.Msg) {
	w.m.Update(msg)
}

// flush sends the events recorded since from.
func (w *walkScript) flush(from int) {
	for _, e := range w.rec.events[from:] {
		w.send(eventMsg{e})
	}
}

// record runs fn on the recorder, then sends what it recorded.
func (w *walkScript) record(fn func(r *recorder)) {
	n := len(w.rec.events)
	fn(w.rec)
	w.flush(n)
}

func (w *walkScript) key(s string) {
	switch s {
	case "enter":
		w.send(tea.KeyMsg{Type: tea.KeyEnter})
	case "esc":
		w.send(tea.KeyMsg{Type: tea.KeyEsc})
	default:
		for _, r := range s {
			w.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
		}
	}
}

func (w *walkScript) step(id string) *playbook.Step {
	s, ok := w.pb.Step(id)
	if !ok {
		w.t.Fatalf("no step %s", id)
	}
	return s
}

// done is the driver saying the step finished with decision d.
func (w *walkScript) done(id string, d session.Decision) {
	w.send(stepDoneMsg{step: id, res: session.StepState{PlannedStep: session.PlannedStep{ID: id}, Decision: &d}})
}

// started: the session start and the host facts.
func (w *walkScript) started() *walkScript {
	w.record(func(r *recorder) { r.start(w.t, w.pb, quickYAML(w.t), referenceRun(10)) })
	return w
}

// reproduced: enter, then the reproduce step, 8 seconds against the
// reference, regressed.
func (w *walkScript) reproduced() *walkScript {
	w.key("enter")
	w.reproducedEvents()
	w.done("reproduce", session.Decision{Next: "tmpfs"})
	return w
}

// reproducedEvents is what the runner says of the reproduce step.
func (w *walkScript) reproducedEvents() {
	d := session.Decision{Next: "tmpfs"}
	w.record(func(r *recorder) {
		r.wait(time.Second)
		r.stepStart(w.step("reproduce"), 6)
		r.samples("reproduce", 1, 8, diskMs)
		r.emit("reproduce", judged(session.AgainstReference, referenceMs, diskMs*1.08, verdict.Regressed,
			"3.37x slower than the reference (p=0.002, 95% CI 3.03x..3.70x)"))
		r.emit("reproduce", &session.StepEnd{State: session.StateRegressed, DurationS: 8.3})
		r.emit("reproduce", &d)
	})
}

// asked: enter on tmpfs, which plans its knob and asks before the change.
func (w *walkScript) asked() *walkScript {
	w.rec.wait(14 * time.Second) // the operator reads the verdict
	w.key("enter")
	w.record(func(r *recorder) {
		r.stepStart(w.step("tmpfs"), 6)
		r.emit("tmpfs", &session.KnobEvent{Action: session.KnobPlanned, Change: tmpfsChange()})
	})
	w.send(askMsg{title: "step tmpfs will change this host", changes: []knob.Change{tmpfsChange()}, reply: make(chan bool, 1)})
	return w
}

// running: yes, then the knob is applied and 5 seconds measured.
func (w *walkScript) running() *walkScript {
	w.key("y")
	w.record(func(r *recorder) {
		r.wait(2 * time.Second)
		ch := tmpfsChange()
		ch.After = "tmpfs size=64MiB at /run/perfbisect/tmpfs-k3j9qz (rw,nosuid,nodev,relatime,size=65536k)"
		r.emit("tmpfs", &session.KnobEvent{Action: session.KnobApplied, Change: ch})
		r.samples("tmpfs", 1, 5, tmpfsMs)
	})
	return w
}

// gone is what the runner says at the end of step id, whose change ch
// took the regression away: the knob put back, its median (about ms)
// faster than the reference and than the regression as reproduced, and on
// to next.
func (w *walkScript) gone(id string, ch knob.Change, ms float64, vsReference, vsRegression string, durationS float64, next string) {
	d := session.Decision{Next: next}
	w.record(func(r *recorder) {
		r.emit(id, &session.KnobEvent{Action: session.KnobReverted, Change: ch})
		r.emit(id, judged(session.AgainstReference, referenceMs, ms*1.1, verdict.Improved, vsReference))
		r.emit(id, judged(session.AgainstRegression, diskMs*1.08, ms*1.1, verdict.Improved, vsRegression))
		r.emit(id, &session.StepEnd{State: session.StateGone, DurationS: durationS})
		r.emit(id, &d)
	})
	w.done(id, d)
}

// concluded: the rest of the walk, tmpfs gone, fsync gone, the volume type
// unavailable, and the playbook's conclusion.
func (w *walkScript) concluded() *walkScript {
	w.record(func(r *recorder) { r.samples("tmpfs", 6, 6, tmpfsMs) })
	w.gone("tmpfs", tmpfsChange(), tmpfsMs, "4.24x faster than the reference", "14.3x faster than the regression", 7.1, "fsync")

	w.rec.wait(9 * time.Second)
	w.key("enter")
	w.record(func(r *recorder) {
		r.stepStart(w.step("fsync"), 6)
		r.emit("fsync", &session.KnobEvent{Action: session.KnobPlanned, Change: fsyncChange()})
	})
	w.send(askMsg{title: "step fsync will change this host", changes: []knob.Change{fsyncChange()}, reply: make(chan bool, 1)})
	w.key("y")
	w.record(func(r *recorder) {
		r.wait(time.Second)
		r.emit("fsync", &session.KnobEvent{Action: session.KnobApplied, Change: fsyncChange()})
		r.samples("fsync", 1, 6, fsyncOffMs)
	})
	w.gone("fsync", fsyncChange(), fsyncOffMs, "7.63x faster than the reference", "25.7x faster than the regression", 6.4, "volume")

	w.rec.wait(5 * time.Second)
	w.key("enter")
	const why = "volume-type: not on EC2 (no instance metadata at 169.254.169.254)"
	const c = "flush latency of this disk; the volume type could not be tried here"
	unavailable := session.Decision{Meaning: why, Conclusion: c}
	w.record(func(r *recorder) {
		r.stepStart(w.step("volume"), 6)
		r.emit("volume", &session.KnobEvent{Action: session.KnobUnavailable,
			Change: knob.Change{Knob: "volume-type", Settings: knob.Settings{"to": "gp3"}}, Error: "not on EC2 (no instance metadata at 169.254.169.254)"})
		r.emit("volume", &session.StepEnd{State: session.StateUnavailable, Reason: why})
		r.emit("volume", &unavailable)
	})
	w.done("volume", unavailable)
	w.record(func(r *recorder) { r.emit("", &session.SessionEnd{Ended: session.EndConcluded, Conclusion: c}) })
	w.send(endedMsg{})
	return w
}
