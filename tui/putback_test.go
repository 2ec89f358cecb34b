package tui

import (
	"bytes"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/perfbisect/perfbisect/session"
	"github.com/perfbisect/perfbisect/session/report"
)

// journaled is the recorded walk with its tmpfs change naming its journal
// entry, as a real host's does, and the index of that applied event.
func journaled(t *testing.T) ([]session.Event, int) {
	t.Helper()
	_, evs := recordedWalk(t)
	for i, e := range evs {
		if k, ok := e.Data.(*session.KnobEvent); ok && k.Action == session.KnobApplied && k.Change.Knob == "tmpfs" {
			applied := *k
			applied.Change.Journal = "/run/perfbisect/journal/1-2-1.json"
			evs[i].Data = &applied
			return evs, i
		}
	}
	t.Fatal("no tmpfs applied in the recorded walk")
	return nil, 0
}

// TestNotPutBackReplayAndSummary: the replay of a walk killed in its tmpfs
// step ends saying NOT PUT BACK and what puts it back, as the headless
// summary does; the whole walk says nothing of the kind.
func TestNotPutBackReplayAndSummary(t *testing.T) {
	evs, i := journaled(t)
	cut := evs[:i+3]
	m := NewReplay("killed.jsonl", cut, nil, 0, false)
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 40})
	playAll(t, m)
	v := m.View()
	if !strings.Contains(v, "NOT PUT BACK: tmpfs: tmpfs size=64m") || !strings.Contains(v, "perfbisect recover") {
		t.Errorf("the replay's end does not say the tmpfs was not put back:\n%s", v)
	}
	var out bytes.Buffer
	NewPrinter(&out, session.NewWalk()).Table(report.Build(cut, nil))
	if s := out.String(); !strings.Contains(s, "!!! NOT PUT BACK: tmpfs size=64m") || !strings.Contains(s, "perfbisect recover") {
		t.Errorf("the headless summary does not say the tmpfs was not put back:\n%s", s)
	}

	whole := NewReplay("whole.jsonl", evs, nil, 0, false)
	whole.Update(tea.WindowSizeMsg{Width: 200, Height: 40})
	playAll(t, whole)
	out.Reset()
	NewPrinter(&out, session.NewWalk()).Table(report.Build(evs, nil))
	if strings.Contains(whole.View(), "NOT PUT BACK") || strings.Contains(out.String(), "NOT PUT BACK") {
		t.Error("a walk that put its tmpfs back says NOT PUT BACK")
	}
}
