package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/session"
)

// The operator's keys on the live screen, with the driver's messages played
// by the script: what each key changes, and which ones reach the runner.

// drain returns the messages the driver has queued, without waiting.
func drain(m *Model) []tea.Msg {
	var out []tea.Msg
	for {
		select {
		case msg := <-m.drv.msgs:
			out = append(out, msg)
		default:
			return out
		}
	}
}

// sessionEnd is the session_end event the driver queued, if any.
func sessionEnd(m *Model) *session.SessionEnd {
	for _, msg := range drain(m) {
		if e, ok := msg.(eventMsg); ok {
			if end, ok := e.e.Data.(*session.SessionEnd); ok {
				return end
			}
		}
	}
	return nil
}

// closes runs cmd, the screen's command that closes the session, and wants
// the session_end it queued to say ended; it returns cmd's message.
func closes(t *testing.T, m *Model, cmd tea.Cmd, ended session.Ending) tea.Msg {
	t.Helper()
	msg := cmd()
	if end := sessionEnd(m); end == nil || end.Ended != ended {
		t.Errorf("session end %+v, want %s", end, ended)
	}
	return msg
}

// TestQuitAnsweredAfterTheStepEnded: the step can end while the quit
// question is open; yes must still end the session and the program.
func TestQuitAnsweredAfterTheStepEnded(t *testing.T) {
	w := newWalkScript(t).started()
	w.key("enter") // reproduce runs
	w.key("q")
	if !w.m.confirmQuit {
		t.Fatal("q during a step did not ask")
	}
	w.reproducedEvents()
	w.done("reproduce", session.Decision{Next: "tmpfs"})
	_, cmd := w.m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("y")})
	if cmd == nil {
		t.Fatal("yes to quit after the step ended does nothing: the screen hangs")
	}
	quitsAfterLinger(t, w.m, closes(t, w.m, cmd, session.EndQuit))
}

// TestQuitWhileIdle: q between steps closes the session at once, with the
// conclusion when there is one.
func TestQuitWhileIdle(t *testing.T) {
	w := newWalkScript(t).started().reproduced()
	_, cmd := w.m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")})
	if w.m.confirmQuit || cmd == nil {
		t.Fatalf("q between steps: asked %v, command %v; want no question and the session closed", w.m.confirmQuit, cmd != nil)
	}
	// A SIGTERM while the session closes does not close it twice.
	if _, again := w.m.Update(Interrupt()); again != nil {
		t.Error("an interrupt during the quit closes the session again")
	}
	quitsAfterLinger(t, w.m, closes(t, w.m, cmd, session.EndQuit))
}

// TestQuitDeclined: anything but y keeps the step running.
func TestQuitDeclined(t *testing.T) {
	w := newWalkScript(t).started().reproduced().asked().running()
	for _, k := range []string{"n", "esc", "q"} {
		w.key("q")
		w.key(k)
		if w.m.confirmQuit || w.m.quitting || !w.m.running {
			t.Errorf("q then %s: asking %v, quitting %v, running %v; want the step to go on", k, w.m.confirmQuit, w.m.quitting, w.m.running)
		}
	}
}

// TestInterrupt: SIGTERM stops the step and quits once the session closes;
// between steps it closes the session as interrupted.
func TestInterrupt(t *testing.T) {
	w := newWalkScript(t).started().reproduced().asked().running()
	cancelled := false
	w.m.drv.cancel = func() { cancelled = true }
	if _, cmd := w.m.Update(Interrupt()); cmd != nil || !cancelled || !w.m.quitting {
		t.Errorf("interrupt during a step: command %v, step cancelled %v, quitting %v", cmd != nil, cancelled, w.m.quitting)
	}
	// The runner puts the knob back and ends the step; the screen closes
	// the session as interrupted, not as the operator's quit.
	_, cmd := w.m.Update(stepDoneMsg{step: "tmpfs", res: session.StepState{PlannedStep: session.PlannedStep{ID: "tmpfs"}, State: session.StateInterrupted}})
	if cmd == nil {
		t.Fatal("the end of the interrupted step does not close the session")
	}
	closes(t, w.m, cmd, session.EndInterrupted)

	idle := newWalkScript(t).started()
	_, cmd = idle.m.Update(Interrupt())
	if cmd == nil {
		t.Fatal("interrupt between steps does nothing")
	}
	closes(t, idle.m, cmd, session.EndInterrupted)
}

// TestConfirmDialogTakesEveryKey: while the runner asks, keys answer it and
// nothing else; y and n go back on the reply channel.
func TestConfirmDialogTakesEveryKey(t *testing.T) {
	for key, want := range map[string]bool{"y": true, "Y": true, "n": false, "N": false, "esc": false} {
		w := newWalkScript(t).started().reproduced().asked()
		reply := make(chan bool, 1)
		w.m.ask.reply = reply
		for _, k := range []string{"q", "x", "s", "?", "enter", "m"} {
			w.key(k)
		}
		if w.m.ask == nil || w.m.confirmQuit || w.m.showHelp || w.m.quitting {
			t.Fatalf("keys other than an answer changed the screen under the question")
		}
		var cmd tea.Cmd
		if key == "esc" {
			_, cmd = w.m.Update(tea.KeyMsg{Type: tea.KeyEsc})
		} else {
			_, cmd = w.m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(key)})
		}
		if w.m.ask != nil || cmd == nil {
			t.Fatalf("%s did not answer", key)
		}
		cmd()
		if got := <-reply; got != want {
			t.Errorf("%s answered %v, want %v", key, got, want)
		}
	}
}

// TestNote: n opens the input; esc and an empty note record nothing; enter
// records the text on the running step.
func TestNote(t *testing.T) {
	w := newWalkScript(t).started().reproduced().asked().running()
	w.key("n")
	w.key("not this")
	w.key("esc")
	if w.m.noting {
		t.Fatal("esc did not close the note")
	}
	w.key("n")
	if _, cmd := w.m.Update(tea.KeyMsg{Type: tea.KeyEnter}); cmd != nil || w.m.noting {
		t.Error("an empty note is recorded")
	}
	w.key("n")
	w.key("q? no: a note about the disk")
	if w.m.confirmQuit {
		t.Fatal("a q typed in a note asks to quit")
	}
	_, cmd := w.m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	if cmd == nil {
		t.Fatal("enter recorded nothing")
	}
	cmd()
	var notes []session.Event
	for _, msg := range drain(w.m) {
		if e, ok := msg.(eventMsg); ok && e.e.Type == session.TypeNote {
			notes = append(notes, e.e)
		}
	}
	if len(notes) != 1 || notes[0].Step != "tmpfs" || notes[0].Data.(*session.Note).Text != "q? no: a note about the disk" {
		t.Errorf("notes %+v, want the typed text on tmpfs", notes)
	}
}

// TestFreezeKeepsTheCharts: f draws a copy of the charts while the live
// rings go on filling; the table and the status stay live.
func TestFreezeKeepsTheCharts(t *testing.T) {
	w := newWalkScript(t).started().reproduced().asked().running()
	w.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	charts := func() string { return strings.Join(strings.Split(w.m.View(), "\n")[8:21], "\n") }
	w.key("f")
	before := charts()
	if !strings.Contains(before, "[frozen]") {
		t.Errorf("a frozen chart does not say so:\n%s", before)
	}
	w.record(func(r *recorder) { r.samples("tmpfs", 6, 9, 0.3) })
	if after := charts(); after != before {
		t.Errorf("the frozen charts moved:\n%s\nwant\n%s", after, before)
	}
	if !strings.Contains(w.m.View(), "running 9s") {
		t.Error("the table stopped while the charts were frozen")
	}
	w.key("f")
	if after := charts(); after == before || strings.Contains(after, "[frozen]") {
		t.Error("f again did not thaw the charts")
	}
}

// TestChartKeys: m steps the latency metric, + and - the window, within
// their bounds.
func TestChartKeys(t *testing.T) {
	w := newWalkScript(t).started().reproduced().asked().running()
	w.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	title := func() string { return strings.Split(w.m.View(), "\n")[14] }
	if !strings.HasPrefix(title(), "latency p99 ms, last 60s") {
		t.Fatalf("latency chart title %q", title())
	}
	w.key("m")
	if strings.HasPrefix(title(), "latency p99 ms") {
		t.Errorf("m did not change the metric: %q", title())
	}
	for range len(windows) + 1 {
		w.key("+")
	}
	if !strings.Contains(title(), "last 600s") {
		t.Errorf("+ to the end: %q, want the 600s window", title())
	}
	for range len(windows) + 1 {
		w.key("-")
	}
	if !strings.Contains(title(), "last 30s") {
		t.Errorf("- to the end: %q, want the 30s window", title())
	}
}

// TestRunPicksTheStep: enter runs the decision's next step, or the one the
// operator selected when it is pending; nothing runs twice at once.
func TestRunPicksTheStep(t *testing.T) {
	w := newWalkScript(t).started().reproduced()
	if got := w.m.st.Steps[w.m.selected].ID; got != "tmpfs" {
		t.Errorf("after reproduce the selection is %s, want the next step, tmpfs", got)
	}
	w.key("j") // down to fsync
	if _, cmd := w.m.Update(tea.KeyMsg{Type: tea.KeyEnter}); cmd == nil || !w.m.running {
		t.Fatal("enter ran nothing")
	}
	if got := w.m.st.Steps[w.m.selected].ID; got != "fsync" {
		t.Errorf("enter on the selected fsync ran %s", got)
	}
	if _, cmd := w.m.Update(tea.KeyMsg{Type: tea.KeyEnter}); cmd != nil {
		t.Error("enter during a step started another")
	}
	if _, cmd := w.m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("s")}); cmd != nil {
		t.Error("s during a step skipped another")
	}
}

// TestSkip: s records the step as skipped by the operator, through the
// runner.
func TestSkip(t *testing.T) {
	w := newWalkScript(t).started().reproduced()
	_, cmd := w.m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("s")})
	if cmd == nil {
		t.Fatal("s skipped nothing")
	}
	done, ok := cmd().(stepDoneMsg)
	if !ok || done.step != "tmpfs" || done.res.State != session.StateSkipped {
		t.Fatalf("s gave %+v, want tmpfs skipped", done)
	}
	for _, msg := range drain(w.m) {
		w.send(msg)
	}
	w.send(done)
	if sv, _ := w.m.st.Step("tmpfs"); sv.State != session.StateSkipped || sv.Reason != "skipped by the operator" {
		t.Errorf("tmpfs %s (%s), want skipped by the operator", sv.State, sv.Reason)
	}
	if got := w.m.st.Steps[w.m.selected].ID; got != "volume" {
		t.Errorf("after the skip the selection is %s, want tmpfs's unavailable target, volume", got)
	}
}

// TestHelp: ? shows every key; any key closes it, q still quits.
func TestHelp(t *testing.T) {
	w := newWalkScript(t).started()
	w.key("?")
	if !strings.Contains(w.m.View(), "shorter window") {
		t.Error("the help does not list every key")
	}
	w.key("j")
	if w.m.showHelp || w.m.selected != 0 {
		t.Errorf("a key on the help screen: help %v, selection %d; want help closed, nothing else", w.m.showHelp, w.m.selected)
	}
	w.key("?")
	if _, cmd := w.m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")}); cmd == nil {
		t.Error("q on the help screen does not quit")
	}
}

// quitsAfterLinger checks that once the session is closed (msg) the screen
// stays a moment, showing the knobs put back, and then the program quits.
func quitsAfterLinger(t *testing.T, m *Model, msg tea.Msg) {
	t.Helper()
	_, cmd := m.Update(msg)
	if cmd == nil {
		t.Fatal("the program does not go on once the session is closed")
	}
	next := cmd()
	if _, ok := next.(leaveMsg); !ok {
		t.Fatalf("after the session closed: %T, want the screen to linger then leave", next)
	}
	if !strings.Contains(m.View(), "every knob is put back") {
		t.Errorf("the last screen does not say the knobs are put back:\n%s", m.View())
	}
	if _, cmd := m.Update(next); cmd == nil || cmd() != tea.Quit() {
		t.Error("the program does not quit after lingering")
	}
}

// TestToolWorkloadShowsWhatItMeasured: pgbench gives an average latency
// and no percentiles, so the latency chart, the m key and the status line
// show avg, and the table the metric the verdicts will judge on.
func TestToolWorkloadShowsWhatItMeasured(t *testing.T) {
	w := newWalkScript(t).started()
	w.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	w.record(func(r *recorder) {
		r.stepStart(&w.pb.Steps[0], 10)
		for sec := 1; sec <= 5; sec++ {
			r.wait(time.Second)
			r.emit("reproduce", &probe.Sample{Sec: sec, OpsPerS: 1300, AvgMs: 0.77, Real: probe.FieldOps | probe.FieldAvg | probe.FieldErrors})
		}
	})
	view := w.m.View()
	for _, want := range []string{"latency avg ms", "ref avg", "1300 ops/s  avg 0.770 ms"} {
		if !strings.Contains(view, want) {
			t.Errorf("view lacks %q:\n%s", want, view)
		}
	}
	for _, not := range []string{"p99", "p50"} {
		if strings.Contains(view, not) {
			t.Errorf("view shows %s, which pgbench does not measure:\n%s", not, view)
		}
	}
	// The reference is the probe's: it has no avg, so the avg chart has no
	// reference line or legend; the throughput chart has both.
	if n := strings.Count(view, "reference"); n != 1 {
		t.Errorf("the legend names the reference %d times, want 1 (throughput only):\n%s", n, view)
	}
	w.key("m")
	if view := w.m.View(); !strings.Contains(view, "latency avg ms") {
		t.Errorf("m left the only latency pgbench measures:\n%s", view)
	}
	w.key("f")
	if view := w.m.View(); !strings.Contains(view, "latency avg ms") || !strings.Contains(view, "[frozen]") {
		t.Errorf("frozen, the chart left the latency pgbench measures:\n%s", view)
	}
}

// Before the first sample, the screen already shows what the session's
// workload will measure: pgbench's average, not the playbook's p50.
func TestToolWorkloadBeforeItsFirstSample(t *testing.T) {
	w := newWalkScript(t)
	w.pb.Workload = probe.DefaultFor(probe.WorkloadPgbench)
	w.started()
	w.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	view := w.m.View()
	if !strings.Contains(view, "ref avg") || !strings.Contains(view, "latency avg ms") {
		t.Errorf("before any sample, want the table and chart on avg:\n%s", view)
	}
}

// TestNextFollowsTheLastDecision: the operator ran fsync before tmpfs; the
// next step is what tmpfs (decided last) chose, not what the step further
// down the playbook chose.
func TestNextFollowsTheLastDecision(t *testing.T) {
	w := newWalkScript(t).started().reproduced()
	decide := func(id, next string) {
		d := session.Decision{Next: next}
		w.record(func(r *recorder) {
			r.stepStart(w.step(id), 6)
			r.emit(id, &session.StepEnd{State: session.StateGone})
			r.emit(id, &d)
		})
	}
	decide("fsync", "volume")
	decide("tmpfs", "fsync")
	if next, ok := w.m.st.Next(); !ok || next != "fsync" {
		t.Errorf("next = %q, %t; want fsync, tmpfs's decision (tmpfs was decided last)", next, ok)
	}
}

// TestSummaryIsTheReverts: what the terminal gets afterwards lists the
// knobs put back, a failed revert once, and no note that happens to say
// "put back"; the last screen says when a knob was not put back.
func TestSummaryIsTheReverts(t *testing.T) {
	w := newWalkScript(t).started().reproduced().asked().running()
	failed := fsyncChange()
	w.record(func(r *recorder) {
		r.emit("tmpfs", &session.Note{Text: "we put back the old AMI by hand"})
		r.emit("tmpfs", &session.KnobEvent{Action: session.KnobReverted, Change: tmpfsChange()})
		r.emit("tmpfs", &session.KnobEvent{Action: session.KnobRevertFailed, Change: failed, Error: "permission denied"})
		r.emit("tmpfs", &session.ErrorEvent{Message: "REVERT FAILED: fsync: permission denied", Action: "put it back by hand"})
	})
	got := w.m.Summary()
	want := "tmpfs: put back tmpfs\ntmpfs: REVERT FAILED fsync: permission denied\n"
	if got != want {
		t.Errorf("Summary =\n%s\nwant\n%s", got, want)
	}
	w.m.quitting = true
	w.send(endedMsg{})
	if last := w.m.st.activity[len(w.m.st.activity)-1]; !strings.Contains(last, "could NOT be put back") {
		t.Errorf("the last screen says %q after a failed revert", last)
	}
}

// TestCtrlCTwiceQuits: the first Ctrl-C during a step asks; the second is
// the answer.
func TestCtrlCTwiceQuits(t *testing.T) {
	w := newWalkScript(t).started().reproduced().asked().running()
	cancelled := false
	w.m.drv.cancel = func() { cancelled = true }
	w.send(tea.KeyMsg{Type: tea.KeyCtrlC})
	if !w.m.confirmQuit {
		t.Fatal("Ctrl-C during a step did not ask")
	}
	w.send(tea.KeyMsg{Type: tea.KeyCtrlC})
	if w.m.confirmQuit || !w.m.quitting || !cancelled {
		t.Errorf("second Ctrl-C: asking %v, quitting %v, step cancelled %v; want the step stopped and the quit under way",
			w.m.confirmQuit, w.m.quitting, cancelled)
	}
}

// TestClockTicksBetweenEvents: live, the header's clock goes on while no
// event comes (a knob applying), and stops at the session's end.
func TestClockTicksBetweenEvents(t *testing.T) {
	w := newWalkScript(t).started()
	since := w.m.st.Last.Sub(w.m.st.Began)
	w.send(tickMsg(w.m.st.Last.Add(75 * time.Second)))
	d := since + 75*time.Second
	if got, want := elapsed(w.m.st, w.m.now), fmt.Sprintf("%02d:%02d", int(d.Minutes()), int(d.Seconds())%60); got != want {
		t.Errorf("after a tick 75s past the last event the clock says %s, want %s", got, want)
	}
	w.m.st.End = &session.SessionEnd{}
	if got, want := elapsed(w.m.st, w.m.now), fmt.Sprintf("%02d:%02d", int(since.Minutes()), int(since.Seconds())%60); got != want {
		t.Errorf("after the end the clock says %s, want %s (the last event)", got, want)
	}
}

// TestStepDoneWaitsForItsEvents: the runner's "step done" can overtake the
// step's last events; the screen takes it only once it has applied them,
// so the next step comes from the step's own decision and enter in between
// cannot run the same step again.
func TestStepDoneWaitsForItsEvents(t *testing.T) {
	w := newWalkScript(t).started()
	w.key("enter") // reproduce runs
	before := len(w.rec.events)
	w.rec.wait(time.Second)
	w.rec.stepStart(w.step("reproduce"), 6)
	w.rec.samples("reproduce", 1, 8, diskMs)
	w.rec.emit("reproduce", &session.StepEnd{State: session.StateMeasured, DurationS: 8.2})
	d := session.Decision{Next: "tmpfs"}
	w.rec.emit("reproduce", &d)
	evs := w.rec.events[before:]
	w.send(stepDoneMsg{step: "reproduce", res: session.StepState{PlannedStep: session.PlannedStep{ID: "reproduce"}, Decision: &d},
		seq: w.m.applied + int64(len(evs))})
	if !w.m.running {
		t.Fatal("the step's end was taken before its events: the walk has not its decision yet")
	}
	w.key("enter")
	for _, e := range evs[:len(evs)-1] {
		w.send(eventMsg{e})
	}
	if !w.m.running {
		t.Fatal("the step's end was taken before its last event")
	}
	w.send(eventMsg{evs[len(evs)-1]})
	if w.m.running || w.m.st.Steps[w.m.selected].ID != "tmpfs" {
		t.Errorf("after the decision came: running %v, selected %s; want tmpfs, ready", w.m.running, w.m.st.Steps[w.m.selected].ID)
	}
}
