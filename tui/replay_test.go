package tui

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/perfbisect/perfbisect/internal/jsonl"
	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/session"
)

// recordedWalk writes the fixed concluded walk as a session log, the way
// the live screen's Log hook does, and returns its path.
func recordedWalk(t testing.TB) (string, []session.Event) {
	t.Helper()
	w := newWalkScript(t).started().reproduced().asked().running().concluded()
	path := filepath.Join(t.TempDir(), "quick.jsonl")
	writeLog(t, path, w.rec.events)
	return path, w.rec.events
}

func writeLog(t testing.TB, path string, evs []session.Event) {
	t.Helper()
	if err := session.WriteLogFile(path, evs); err != nil {
		t.Fatal(err)
	}
}

func readLog(t testing.TB, path string) ([]session.Event, []*jsonl.SyntaxError) {
	t.Helper()
	evs, bad, err := session.ReadLogFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return evs, bad
}

// TestReplayPlaysAll plays a recorded log at speed 0 (as fast as readable)
// in a real program, to the conclusion and the end of the recording.
func TestReplayPlaysAll(t *testing.T) {
	t.Parallel()
	path, _ := recordedWalk(t)
	evs, bad := readLog(t, path)
	if len(bad) != 0 {
		t.Fatalf("bad lines in a whole log: %v", bad)
	}
	m := NewReplay(path, evs, bad, 0, false)
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(80, 24))
	s := &term{tm: tm}
	s.waitFor(t, `REPLAY readable`, shortTimeout)
	s.waitFor(t, `end of the recording — q to quit`, shortTimeout)
	s.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")})
	tm.WaitFinished(t, teatest.WithFinalTimeout(shortTimeout))

	s.mu.Lock()
	all := string(s.seen)
	s.mu.Unlock()
	for _, want := range []string{"running 8s", "reproduce: regressed → next: tmpfs", "conclusion: flush latency of this disk"} {
		if !strings.Contains(all, want) {
			t.Errorf("the replay never drew %q", want)
		}
	}
	final := tm.FinalModel(t).(*Model)
	if final.rp.pos != len(evs) || !final.rp.done {
		t.Errorf("replay stopped at event %d of %d (done %v)", final.rp.pos, len(evs), final.rp.done)
	}
	if final.st.End == nil || final.st.End.Ended != session.EndConcluded {
		t.Errorf("session end %+v, want concluded", final.st.End)
	}
	for _, sv := range final.st.Steps {
		if sv.State == session.StatePending || sv.State == session.StateRunning {
			t.Errorf("step %s still %s at the end of the replay", sv.ID, sv.State)
		}
	}
}

// stepStarts lists the indexes of the step_start events.
func stepStarts(evs []session.Event) []int {
	var out []int
	for i, e := range evs {
		if e.Type == session.TypeStepStart {
			out = append(out, i)
		}
	}
	return out
}

func replayKey(m *Model, k string) tea.Cmd {
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)})
	return cmd
}

// TestReplayJumps: ] shows the start of the next step with everything
// before it applied, [ goes back by rebuilding, and a tick scheduled before
// a jump is dropped.
func TestReplayJumps(t *testing.T) {
	path, _ := recordedWalk(t)
	evs, _ := readLog(t, path)
	starts := stepStarts(evs)
	if len(starts) != 4 {
		t.Fatalf("%d step starts in the walk, want 4", len(starts))
	}
	m := NewReplay(path, evs, nil, 0, false)
	m.Init()

	type at struct {
		key     string
		pos     int    // events applied
		current string // the step under way
		states  string
	}
	for i, want := range []at{
		{"]", starts[0] + 1, "reproduce", "running pending pending pending"},
		{"]", starts[1] + 1, "tmpfs", "regressed running pending pending"},
		{"]", starts[2] + 1, "fsync", "regressed gone running pending"},
		{"[", starts[1] + 1, "tmpfs", "regressed running pending pending"},
		{"[", starts[0] + 1, "reproduce", "running pending pending pending"},
		{"]", starts[1] + 1, "tmpfs", "regressed running pending pending"},
		{"]", starts[2] + 1, "fsync", "regressed gone running pending"},
		{"]", starts[3] + 1, "volume", "regressed gone gone running"},
		{"]", len(evs), "", "regressed gone gone unavailable"},
	} {
		stale := replayMsg{gen: m.rp.gen}
		replayKey(m, want.key)
		m.Update(stale) // scheduled before the jump: must change nothing
		var states []string
		for _, sv := range m.st.Steps {
			states = append(states, string(sv.State))
		}
		current := ""
		if cur := m.st.Current(); cur != nil {
			current = cur.ID
		}
		if m.rp.pos != want.pos || current != want.current || strings.Join(states, " ") != want.states {
			t.Errorf("press %d (%s): at event %d, step %q, states %v; want %d, %q, %s",
				i+1, want.key, m.rp.pos, current, states, want.pos, want.current, want.states)
		}
		if current != "" && m.st.ring.Len() != 0 {
			t.Errorf("press %d (%s): the step's chart holds %d samples at its start", i+1, want.key, m.st.ring.Len())
		}
	}
	if !m.rp.done {
		t.Error("] past the last step did not end the replay")
	}
	if !strings.Contains(m.View(), "end of the recording") {
		t.Error("the end of the recording is not said")
	}
	// Back from the end: the replay goes on from the last step's start.
	if cmd := replayKey(m, "["); cmd == nil || m.rp.done || m.rp.pos != starts[3]+1 {
		t.Errorf("[ from the end: at event %d, done %v, schedule %v; want %d, playing", m.rp.pos, m.rp.done, cmd != nil, starts[3]+1)
	}
}

// TestReplayPause: space stops the replay where it is (the schedule it had
// is dropped) and says so; space again goes on at once.
func TestReplayPause(t *testing.T) {
	path, _ := recordedWalk(t)
	evs, _ := readLog(t, path)
	m := NewReplay(path, evs, nil, 0, false)
	m.Init()
	for range 5 {
		m.Update(replayMsg{gen: m.rp.gen})
	}
	pos := m.rp.pos
	if cmd := replayKey(m, " "); cmd != nil {
		t.Error("pausing scheduled a tick")
	}
	if !regexp.MustCompile(`REPLAY paused`).MatchString(m.View()) {
		t.Errorf("the header does not say paused:\n%s", m.View())
	}
	for range 3 { // ticks of the old schedule, and of none
		m.Update(replayMsg{gen: m.rp.gen - 1})
		m.Update(replayMsg{gen: m.rp.gen})
	}
	if m.rp.pos != pos {
		t.Fatalf("paused at event %d, the replay went on to %d", pos, m.rp.pos)
	}
	cmd := replayKey(m, " ")
	if cmd == nil {
		t.Fatal("resuming scheduled nothing")
	}
	m.Update(cmd()) // speed 0 resumes at once: the tick is immediate
	if m.rp.pos <= pos {
		t.Errorf("resumed at event %d, want past %d", m.rp.pos, pos)
	}
	if strings.Contains(m.View(), "paused") {
		t.Error("the header still says paused")
	}
}

// TestReplayTornLog: a log cut mid-line by a crash plays up to its last
// whole line, and the header says it was cut short and where.
func TestReplayTornLog(t *testing.T) {
	path, all := recordedWalk(t)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Cut in the middle of the 40th line.
	lines := strings.SplitAfter(string(b), "\n")
	torn := strings.Join(lines[:39], "") + lines[39][:len(lines[39])/2]
	if err := os.WriteFile(path, []byte(torn), 0o644); err != nil {
		t.Fatal(err)
	}
	evs, bad := readLog(t, path)
	if len(evs) != 39 || len(bad) != 1 || !bad[0].Torn {
		t.Fatalf("read %d events and bad lines %v, want 39 and one torn", len(evs), bad)
	}
	m := NewReplay(path, evs, bad, 0, false)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	playAll(t, m)
	v := m.View()
	header := strings.Split(v, "\n")[:2]
	if !strings.Contains(header[0], "CUT SHORT") || !strings.Contains(header[1], "cut short at line 40") {
		t.Errorf("header does not say the log is cut short at line 40:\n%s", strings.Join(header, "\n"))
	}
	if m.rp.pos != 39 || m.st.End != nil {
		t.Errorf("played %d events (session end %v), want the 39 whole lines and no end", m.rp.pos, m.st.End)
	}
	if !strings.Contains(v, "end of the recording") {
		t.Error("the end of the torn recording is not said")
	}
	// The whole log has no such mark.
	whole := NewReplay(path, all, nil, 0, false)
	playAll(t, whole)
	if strings.Contains(whole.View(), "CUT SHORT") {
		t.Error("a whole log is marked cut short")
	}
}

// TestReplayPace: the pause between events is the recorded gap over the
// speed, capped; speed 0 is the readable pace; > and < step the speed.
func TestReplayPace(t *testing.T) {
	evs := []session.Event{
		{Type: session.TypeSample, Time: t0, Data: &probe.Sample{Sec: 1}},
		{Type: session.TypeSample, Time: t0.Add(time.Second), Data: &probe.Sample{Sec: 2}},
		{Type: session.TypeNote, Time: t0.Add(time.Minute), Data: &session.Note{Text: "lunch"}},
	}
	uu := map[string]struct {
		speed float64
		pos   int
		want  time.Duration
	}{
		"readable":        {0, 1, readablePace},
		"recorded":        {1, 1, time.Second},
		"four times":      {4, 1, 250 * time.Millisecond},
		"long pause caps": {1, 2, maxPause},
		"slow caps too":   {0.25, 1, maxPause},
	}
	for name, u := range uu {
		rp := &replayer{events: evs, speed: u.speed, pos: u.pos}
		if got := rp.delay(); got != u.want {
			t.Errorf("%s: delay %v, want %v", name, got, u.want)
		}
	}
	m := NewReplay("x.jsonl", evs, nil, 0, false)
	for _, step := range []struct {
		key, want string
	}{{">", "x2"}, {">", "x4"}, {"<", "x2"}, {"<", "x1"}, {"<", "x0.5"}} {
		replayKey(m, step.key)
		if got := m.rp.speedText(); got != step.want {
			t.Errorf("after %s: speed %s, want %s", step.key, got, step.want)
		}
	}
	m.rp.speed = 0
	replayKey(m, "<")
	if got := m.rp.speedText(); got != "x0.5" {
		t.Errorf("< from readable: %s, want x0.5 (readable counts as x1)", got)
	}
}
