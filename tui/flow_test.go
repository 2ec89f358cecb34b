package tui

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/perfbisect/perfbisect/internal/testutil"
	"github.com/perfbisect/perfbisect/internal/testutil/hosttest"
	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/host"
	"github.com/perfbisect/perfbisect/session"
	"github.com/perfbisect/perfbisect/session/playbook"
)

// The flows drive the live screen as an operator would, over a real runner
// whose workload runs in a child agent (this test binary), on the local
// host as root: the tmpfs step really mounts, and must really unmount.

// Timeouts of the flows: generous against a loaded CI machine, far below
// the test binary's own.
const (
	stepTimeout  = 40 * time.Second // a 6-second step, its agent and the verdict
	shortTimeout = 10 * time.Second // a key's effect, a sample
	finalTimeout = 30 * time.Second // the quit: stop, revert, close the session
)

// eventLog is the Options.Log hook: the session log as the test sees it.
type eventLog struct {
	mu     sync.Mutex
	events []session.Event
}

func (l *eventLog) add(e session.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
}

func (l *eventLog) all() []session.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.events)
}

// of lists the events of a type, of a step ("" for any).
func (l *eventLog) of(typ session.Type, step string) []session.Event {
	var out []session.Event
	for _, e := range l.all() {
		if e.Type == typ && (step == "" || e.Step == step) {
			out = append(out, e)
		}
	}
	return out
}

// waitEvent waits until an event matches.
func (l *eventLog) waitEvent(t *testing.T, what string, match func(session.Event) bool) session.Event {
	t.Helper()
	deadline := time.Now().Add(shortTimeout)
	for time.Now().Before(deadline) {
		for _, e := range l.all() {
			if match(e) {
				return e
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no %s event after %v; the log has %s", what, shortTimeout, l.summary())
	return session.Event{}
}

func (l *eventLog) summary() string {
	var b strings.Builder
	for _, e := range l.all() {
		if e.Type == session.TypeSample {
			continue
		}
		fmt.Fprintf(&b, "\n  %s %s %+v", e.Type, e.Step, e.Data)
	}
	return b.String()
}

// term is the program's terminal: all it was sent, so that a wait looks at
// everything drawn since the last key, however the reads fell.
type term struct {
	tm   *teatest.TestModel
	mu   sync.Mutex
	seen []byte
	mark int // where the output stood at the last key
}

func (s *term) Read(p []byte) (int, error) {
	n, err := s.tm.Output().Read(p)
	s.mu.Lock()
	s.seen = append(s.seen, p[:n]...)
	s.mu.Unlock()
	return n, err
}

func (s *term) since() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.seen[s.mark:])
}

// drained reads what was drawn so far, so that a wait that follows sees
// only what the next key draws.
func (s *term) drained() {
	io.Copy(io.Discard, s)
	s.mu.Lock()
	s.mark = len(s.seen)
	s.mu.Unlock()
}

func (s *term) key(k tea.KeyMsg) {
	s.drained()
	s.tm.Send(k)
}

func (s *term) enter() { s.key(tea.KeyMsg{Type: tea.KeyEnter}) }

func (s *term) typed(text string) {
	s.drained()
	s.tm.Type(text)
}

// waitFor waits until the screen drew re since the last key.
func (s *term) waitFor(t *testing.T, re string, d time.Duration) {
	t.Helper()
	rx := regexp.MustCompile(re)
	teatest.WaitFor(t, s, func([]byte) bool { return rx.Match(s.since()) },
		teatest.WithDuration(d), teatest.WithCheckInterval(20*time.Millisecond))
}

// flow is one live screen under test.
type flow struct {
	*term
	log  *eventLog
	host *host.Local
}

// fastReference is a known-good run far faster than any disk (or tmpfs), so
// that the reproduce step is judged regressed (and stops) at its planned 6
// seconds.
func fastReference() []probe.Sample {
	out := make([]probe.Sample, 12)
	for i := range out {
		p50 := 0.0002 + float64(i%4)*0.00002
		out[i] = probe.Sample{Sec: i + 1, OpsPerS: 1e6, MiBPerS: 3900, P50Ms: p50, P95Ms: p50 * 2, P99Ms: p50 * 3, MaxMs: p50 * 5}
	}
	return out
}

func startFlow(t *testing.T, yes bool) *flow {
	t.Helper()
	testutil.RequireRoot(t) // the tmpfs knob mounts
	return startFlowOn(t, quickPlaybook(t), yes)
}

// startFlowOn is a live screen walking pb.
func startFlowOn(t *testing.T, pb *playbook.Playbook, yes bool) *flow {
	t.Helper()
	h := hosttest.Local(t)
	spec := pb.Workload
	spec.Dir = filepath.Join(t.TempDir(), "data")
	ctx, cancel := context.WithCancel(context.Background())
	f := &flow{log: &eventLog{}, host: h}
	m, err := NewLive(ctx, Options{
		Options: session.Options{Playbook: pb, Host: h, Workload: spec, Version: "test",
			Reference: fastReference(), ReferenceFile: "fast.jsonl"},
		Yes: yes, Log: f.log.add, LogPath: "flow.jsonl",
	})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	f.term = &term{tm: teatest.NewTestModel(t, m, teatest.WithInitialTermSize(80, 24))}
	// Whatever happened, stop the walk and put the host back before the
	// test's directories go: cancel the step, then quit as on SIGTERM.
	t.Cleanup(func() {
		cancel()
		f.tm.Send(Interrupt())
		f.tm.WaitFinished(t, teatest.WithFinalTimeout(finalTimeout))
		if left := hosttest.MountsUnder(t, h.Env.StateDir); len(left) > 0 {
			t.Errorf("mounts left under %s: %v", h.Env.StateDir, left)
		}
	})
	return f
}

// reproduce runs the first step and waits for its verdict and decision.
func (f *flow) reproduce(t *testing.T) {
	t.Helper()
	f.waitFor(t, "press enter to run the first step", shortTimeout)
	f.enter()
	f.waitFor(t, `reproduce +regressed +0\.00\d+ +\d[\d.]* +\d+(\.\d+)?x`, stepTimeout) // the verdict in the table
	f.waitFor(t, `reproduce: regressed → next: tmpfs`, shortTimeout)                    // the decision
}

// tmpfsRunning starts a flow with --yes, runs the reproduce step and
// starts the tmpfs step, which it leaves running.
func tmpfsRunning(t *testing.T) *flow {
	t.Helper()
	f := startFlow(t, true)
	f.reproduce(t)
	f.enter()
	f.tmpfsSample(t)
	return f
}

// tmpfsSample waits for a second of the tmpfs step on the screen.
func (f *flow) tmpfsSample(t *testing.T) {
	t.Helper()
	f.waitFor(t, `tmpfs +running [1-9]`, shortTimeout)
	f.waitFor(t, ` [1-9]s/6s .*ops/s`, shortTimeout)
}

// quit answers yes to the quit question during a step, waits for the program
// to end, and checks that the step was stopped and the host put back.
func (f *flow) quit(t *testing.T) {
	t.Helper()
	f.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")})
	f.waitFor(t, `quit\? \[y/N\]`, shortTimeout)
	f.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("y")})
	f.tm.WaitFinished(t, teatest.WithFinalTimeout(finalTimeout))

	var actions []string
	for _, e := range f.log.of(session.TypeKnob, "tmpfs") {
		actions = append(actions, string(e.Data.(*session.KnobEvent).Action))
	}
	if got := strings.Join(actions, " "); got != "planned applied reverted" {
		t.Errorf("tmpfs knob: %s, want planned applied reverted", got)
	}
	if left := hosttest.MountsUnder(t, f.host.Env.StateDir); len(left) > 0 {
		t.Errorf("mounts left under %s after the quit: %v", f.host.Env.StateDir, left)
	}
	if ends := f.log.of(session.TypeStepEnd, "tmpfs"); len(ends) != 1 || ends[0].Data.(*session.StepEnd).State != session.StateInterrupted {
		t.Errorf("tmpfs step end %+v, want interrupted", ends)
	}
	evs := f.log.all()
	last := evs[len(evs)-1]
	if end, ok := last.Data.(*session.SessionEnd); !ok || end.Ended != session.EndQuit {
		t.Errorf("last event %s %+v, want a session_end that says quit", last.Type, last.Data)
	}
	if n := len(f.log.of(session.TypeSessionEnd, "")); n != 1 {
		t.Errorf("%d session ends, want 1", n)
	}
	if m := f.tm.FinalModel(t).(*Model); !m.ended || m.running {
		t.Errorf("final model: ended %v, running %v", m.ended, m.running)
	}
}

// TestFlowConfirmNoteQuit: the first step, its verdict and decision; the
// tmpfs step asks before mounting; a note while it runs; q, y puts the
// host back and ends the session.
func TestFlowConfirmNoteQuit(t *testing.T) {
	t.Parallel()
	f := startFlow(t, false)
	f.reproduce(t)

	f.enter()
	f.waitFor(t, `step tmpfs will change this host`, shortTimeout)
	f.waitFor(t, `put back: umount `, shortTimeout)
	if n := len(f.log.of(session.TypeSample, "tmpfs")); n != 0 {
		t.Fatalf("%d tmpfs samples before the operator said yes", n)
	}
	f.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("y")})
	f.tmpfsSample(t)

	f.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("n")})
	f.waitFor(t, `note for the session log`, shortTimeout)
	f.typed("tmpfs p50 flat, iostat idle")
	f.waitFor(t, `iostat idle`, shortTimeout)
	f.enter()
	note := f.log.waitEvent(t, "note", func(e session.Event) bool { return e.Type == session.TypeNote })
	if got := note.Data.(*session.Note).Text; got != "tmpfs p50 flat, iostat idle" || note.Step != "tmpfs" {
		t.Errorf("note %q on step %q, want the typed text on tmpfs", got, note.Step)
	}
	if f.log.of(session.TypeStepEnd, "tmpfs") != nil {
		t.Fatal("the tmpfs step ended before the quit: the flow is too slow to test a quit during a step")
	}
	f.quit(t)
}

// TestFlowYesExtend: with --yes no question is asked before a change, and
// x makes the running step go on past its planned seconds.
func TestFlowYesExtend(t *testing.T) {
	t.Parallel()
	f := tmpfsRunning(t)
	f.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("x")})
	f.waitFor(t, `tmpfs +running (7|8|9|1\d)s`, shortTimeout)
	f.waitFor(t, ` (7|8|9|1\d)s/16s`, shortTimeout)
	if ends := f.log.of(session.TypeStepEnd, "tmpfs"); len(ends) != 0 {
		t.Fatalf("the tmpfs step ended at %+v despite x", ends[0].Data)
	}
	past := 0
	for _, e := range f.log.of(session.TypeSample, "tmpfs") {
		past = max(past, e.Data.(*probe.Sample).Sec)
	}
	if past <= 6 {
		t.Errorf("last tmpfs second %d, want past the planned 6", past)
	}
	// The extension is in the log, so that a replay shows what the
	// screen showed: 16 s planned, not 6.
	if ext := f.log.of(session.TypeExtend, "tmpfs"); len(ext) != 1 || ext[0].Data.(*session.Extend).PlannedS != 16 {
		t.Errorf("extend events %+v, want one to 16 s", ext)
	}
	f.quit(t)
	if st, _ := session.Fold(f.log.all()).Step("tmpfs"); st.PlannedS != 16 || st.ExtendedS != 10 {
		t.Errorf("the log's tmpfs step: planned %g s, extended by %g s; want 16 and 10", st.PlannedS, st.ExtendedS)
	}

	f.mu.Lock()
	all := f.seen
	f.mu.Unlock()
	if bytes.Contains(all, []byte("will change this host")) {
		t.Error("a question was asked despite --yes")
	}
}

// TestFlowStoppedProgramFinishes: a program that stops mid-step without
// the screen seeing why (bubbletea's own quit, a vanished terminal, an
// error on it) leaves the step running; Finish stops it, puts the tmpfs
// back and closes the session, and the summary tells it.
func TestFlowStoppedProgramFinishes(t *testing.T) {
	t.Parallel()
	f := tmpfsRunning(t)
	f.tm.Quit() // the program stops; the model never hears of it
	f.tm.WaitFinished(t, teatest.WithFinalTimeout(finalTimeout))
	if ends := f.log.of(session.TypeSessionEnd, ""); len(ends) != 0 {
		t.Fatalf("the session ended before Finish: %+v", ends[0].Data)
	}
	m := f.tm.FinalModel(t).(*Model)
	m.Finish("the screen stopped (EIO)")
	if left := hosttest.MountsUnder(t, f.host.Env.StateDir); len(left) > 0 {
		t.Errorf("mounts left under %s after Finish: %v", f.host.Env.StateDir, left)
	}
	evs := f.log.all()
	end, ok := evs[len(evs)-1].Data.(*session.SessionEnd)
	if !ok || end.Ended != session.EndInterrupted || end.Error != "the screen stopped (EIO)" {
		t.Errorf("last event %s %+v, want the session's end, interrupted, saying why", evs[len(evs)-1].Type, evs[len(evs)-1].Data)
	}
	if st, _ := m.Walk().Step("tmpfs"); st.State != session.StateInterrupted {
		t.Errorf("tmpfs %s, want interrupted", st.State)
	}
	if sum := m.Summary(); !strings.Contains(sum, "tmpfs") || !strings.Contains(sum, "session interrupted: the screen stopped (EIO)") {
		t.Errorf("summary %q does not tell the revert and the end", sum)
	}
	m.Finish("again") // idempotent: nothing more happens
	if n := len(f.log.of(session.TypeSessionEnd, "")); n != 1 {
		t.Errorf("%d session ends, want 1", n)
	}
}
