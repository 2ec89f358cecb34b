package tui

import (
	"path/filepath"
	"runtime"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/knob"
	"github.com/perfbisect/perfbisect/session"
	"github.com/perfbisect/perfbisect/session/playbook"
	"github.com/perfbisect/perfbisect/session/verdict"
)

// framesPerSecond is what a live step draws each second: one frame for its
// sample event and one for the clock tick.
const framesPerSecond = 2

// BenchmarkViewLive120x40 is one frame of the live screen at its largest
// usual size with every ring full: 600 seconds of reference, of regression
// and of the running step. At one sample a second the screen draws
// framesPerSecond of these; %core is that share of one CPU core.
func BenchmarkViewLive120x40(b *testing.B) {
	pb := quickPlaybook(b)
	m := newLiveModel(b, pb)
	rec := &recorder{at: t0}
	rec.start(b, pb, quickYAML(b), referenceRun(600))
	rec.stepStart(&pb.Steps[0], 600)
	rec.samples("reproduce", 1, 600, diskMs)
	rec.stepStart(&pb.Steps[1], 600)
	rec.samples("tmpfs", 1, 600, tmpfsMs)
	for _, e := range rec.events {
		m.Update(eventMsg{e})
	}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	if m.st.ring.Len() != ringSize || m.st.reference.Len() != ringSize || m.st.repro.Len() != ringSize {
		b.Fatalf("rings hold %d, %d, %d samples, want %d each", m.st.ring.Len(), m.st.reference.Len(), m.st.repro.Len(), ringSize)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = m.View()
	}
	nsPerFrame := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	share := framesPerSecond * nsPerFrame / 1e9 * 100
	b.ReportMetric(share, "%core")
	b.Logf("%.0f ns a frame x %d frames/s = %.3f%% of one core to draw a live step", nsPerFrame, framesPerSecond, share)
}

// BenchmarkApplySample is one second of a live step reaching the screen's
// state: a sample event into the rings and into the walk's record of the
// step, hour-long steps one after the other (each start sizes its record
// for the hour, so B/op is that record's share of a second).
func BenchmarkApplySample(b *testing.B) {
	const hour = 3600
	st, s, e := stepRunning(b, 1, tmpfsMs, hour)
	restart := session.NewEvent(t0, e.Step, &session.StepStart{Title: "tmpfs", DurationS: hour})
	b.ReportAllocs()
	for b.Loop() {
		if s.Sec == hour {
			s.Sec = 0
			st.apply(restart)
		}
		s.Sec++
		e.Time = e.Time.Add(time.Second)
		st.apply(e)
	}
}

// stepRunning is the screen's state once the quick walk has started (with
// a 600-second reference) and its step i is running, planned for seconds,
// and a sample event of that step at base ms: s is its payload, for the
// caller to move on.
func stepRunning(tb testing.TB, i int, base, seconds float64) (*walkState, *probe.Sample, session.Event) {
	tb.Helper()
	pb := quickPlaybook(tb)
	st := newWalkState()
	rec := &recorder{at: t0}
	rec.start(tb, pb, quickYAML(tb), referenceRun(600))
	rec.stepStart(&pb.Steps[i], seconds)
	for _, e := range rec.events {
		st.apply(e)
	}
	s := sample(0, base)
	return st, s, session.Event{Type: session.TypeSample, Time: t0, Step: pb.Steps[i].ID, Data: s}
}

// hourLog writes a one-hour session of the embedded ebs-write-regression
// playbook (six steps) as perfbisect records it: the session with its
// playbook and a 600-second reference, the host, and for each step its
// start, knobs planned, applied and put back, 600 samples, verdicts, end
// and decision, a note now and then, and the session's end. 3600 samples.
func hourLog(b *testing.B) string {
	pb, err := playbook.Lookup("ebs-write-regression")
	if err != nil {
		b.Fatal(err)
	}
	if len(pb.Steps) != 6 {
		b.Fatalf("%s has %d steps, want 6", pb.Name, len(pb.Steps))
	}
	rec := &recorder{at: t0}
	rec.start(b, pb, string(pb.YAML), referenceRun(600))
	for i := range pb.Steps {
		step := &pb.Steps[i]
		rec.wait(20 * time.Second)
		rec.stepStart(step, 600)
		for _, k := range step.Knobs {
			ch := knob.Change{Knob: k.Knob, Settings: k.With, Do: []string{"do " + k.Knob}, Undo: []string{"undo " + k.Knob}, Before: "as found"}
			rec.emit(step.ID, &session.KnobEvent{Action: session.KnobPlanned, Change: ch})
			rec.emit(step.ID, &session.KnobEvent{Action: session.KnobApplied, Change: ch})
		}
		base := diskMs
		if i%2 == 1 {
			base = tmpfsMs
		}
		rec.samples(step.ID, 1, 600, base)
		if i%3 == 0 {
			rec.emit(step.ID, &session.Note{Text: "iostat -x 1 shows the volume at its IOPS limit"})
		}
		for _, k := range step.Knobs {
			rec.emit(step.ID, &session.KnobEvent{Action: session.KnobReverted, Change: knob.Change{Knob: k.Knob, Settings: k.With}})
		}
		rec.emit(step.ID, judged(session.AgainstReference, referenceMs, base, verdict.Regressed, "slower than the reference"))
		if !step.Reproduce {
			rec.emit(step.ID, judged(session.AgainstRegression, diskMs, base, verdict.Same, "no faster than the regression"))
		}
		sum := &probe.Summary{DurationS: 600, Ops: 600 * int64(1000/base), OpsPerS: 1000 / base}
		rec.emit(step.ID, &session.StepEnd{State: session.StatePersists, Summary: sum, DurationS: 600})
		next := ""
		if i+1 < len(pb.Steps) {
			next = pb.Steps[i+1].ID
		}
		rec.emit(step.ID, &session.Decision{Next: next})
	}
	rec.emit("", &session.SessionEnd{Ended: session.EndConcluded, Conclusion: "the volume type"})

	path := filepath.Join(b.TempDir(), "hour.jsonl")
	writeLog(b, path, rec.events)
	return path
}

// BenchmarkReplayOpen1h is `perfbisect replay` of a one-hour session up to
// its first frame: read and decode the log, make the screen, start the
// replay (its first tick, which is immediate) and draw at 120x40.
func BenchmarkReplayOpen1h(b *testing.B) {
	path := hourLog(b)
	b.ReportAllocs()
	for b.Loop() {
		evs, bad, err := session.ReadLogFile(path)
		if err != nil || len(bad) != 0 {
			b.Fatalf("read %s: %v %v", path, err, bad)
		}
		m := NewReplay(path, evs, bad, 0, false)
		m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		m.Update(m.Init()())
		_ = m.View()
	}
	ms := float64(b.Elapsed().Nanoseconds()) / float64(b.N) / 1e6
	b.ReportMetric(ms, "ms/open")
	b.Logf("opening a 1-hour replay (3600 samples) takes %.1f ms", ms)
}

// TestApplySampleDoesNotAllocate holds apply to its promise: within the
// step's planned length a second costs no allocation (the rings are fixed,
// and the walk sized its record of the step's seconds at its start); only
// an extended step's record grows, by doubling. Counted exactly, not as
// testing.AllocsPerRun's rounded average.
func TestApplySampleDoesNotAllocate(t *testing.T) {
	st, s, e := stepRunning(t, 0, diskMs, 1100)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 1001 {
		s.Sec++
		st.apply(e)
	}
	runtime.ReadMemStats(&after)
	if n := after.Mallocs - before.Mallocs; n != 0 {
		t.Errorf("1001 seconds of a step planned for 1100: %d allocations, want 0", n)
	}
	if st.ring.Len() != ringSize || st.repro.Len() != ringSize {
		t.Errorf("rings hold %d and %d samples after 1001 seconds, want %d", st.ring.Len(), st.repro.Len(), ringSize)
	}
}
