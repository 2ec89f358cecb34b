package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/perfbisect/perfbisect/internal/jsonl"
	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/session"
)

// sizes are the terminals every screen is drawn at: the two of the goldens,
// then a resize to a small one.
var sizes = []struct{ w, h int }{{80, 24}, {120, 40}, {60, 20}}

// screens are the states of the screen worth a golden, each built by
// playing the fixed walk into a fresh model.
var screens = map[string]func(t testing.TB) *Model{
	// The tmpfs step five seconds in, over the reference and the regression.
	"walk": func(t testing.TB) *Model { return newWalkScript(t).started().reproduced().asked().running().m },
	// Before the first step: nothing measured yet.
	"start": func(t testing.TB) *Model { return newWalkScript(t).started().m },
	// The runner asks before tmpfs changes the host.
	"confirm": func(t testing.TB) *Model { return newWalkScript(t).started().reproduced().asked().m },
	// n during the step, and a few words typed.
	"note": func(t testing.TB) *Model {
		w := newWalkScript(t).started().reproduced().asked().running()
		w.key("n")
		w.key("p99 flat at 0.2 ms")
		return w.m
	},
	// ? during the step: every key.
	"help": func(t testing.TB) *Model {
		w := newWalkScript(t).started().reproduced().asked().running()
		w.key("?")
		return w.m
	},
	// q while a step runs asks first.
	"quit": func(t testing.TB) *Model {
		w := newWalkScript(t).started().reproduced().asked().running()
		w.key("q")
		return w.m
	},
	// The whole walk, to the playbook's conclusion.
	"concluded": func(t testing.TB) *Model {
		return newWalkScript(t).started().reproduced().asked().running().concluded().m
	},
	// A replay of a log torn in the fsync step, played to its end.
	"replay_torn": func(t testing.TB) *Model {
		evs := tornWalk(t)
		m := NewReplay("sessions/quick-20250304-1000.jsonl", evs, []*jsonl.SyntaxError{{Line: len(evs) + 1, Torn: true}}, 0, false)
		playAll(t, m)
		return m
	},
}

// tornWalk is the concluded walk's events up to the third second of the
// fsync step, as a log that a crash cut there reads back.
func tornWalk(t testing.TB) []session.Event {
	w := newWalkScript(t).started().reproduced().asked().running().concluded()
	var out []session.Event
	for _, e := range w.rec.events {
		out = append(out, e)
		if s, ok := e.Data.(*probe.Sample); ok && e.Step == "fsync" && s.Sec == 3 {
			break
		}
	}
	return out
}

// playAll plays a replay to its end without waiting: each replayMsg is
// what the schedule would send.
func playAll(t testing.TB, m *Model) {
	t.Helper()
	m.Init()
	for i := 0; !m.rp.done; i++ {
		if i > len(m.rp.events) {
			t.Fatalf("replay stuck at event %d of %d", m.rp.pos, len(m.rp.events))
		}
		m.Update(replayMsg{gen: m.rp.gen})
	}
}

// TestViewGolden compares each screen with its golden at the two sizes
// the screen is made for. go test ./tui -run TestViewGolden -update
// rewrites them.
func TestViewGolden(t *testing.T) {
	for name, build := range screens {
		for _, sz := range sizes[:2] {
			t.Run(fmt.Sprintf("%s_%dx%d", name, sz.w, sz.h), func(t *testing.T) {
				m := build(t)
				m.Update(tea.WindowSizeMsg{Width: sz.w, Height: sz.h})
				requireGolden(t, fmt.Sprintf("%s_%dx%d", name, sz.w, sz.h), m.View())
			})
		}
	}
}

// TestViewFillsTheTerminal: every screen is exactly width x height cells,
// drawn as plain text, at both sizes and after a resize to a small one.
func TestViewFillsTheTerminal(t *testing.T) {
	for name, build := range screens {
		t.Run(name, func(t *testing.T) {
			m := build(t)
			for _, sz := range sizes {
				m.Update(tea.WindowSizeMsg{Width: sz.w, Height: sz.h})
				requireSize(t, fmt.Sprintf("%dx%d", sz.w, sz.h), m.View(), sz.w, sz.h)
			}
		})
	}
}

func requireSize(t *testing.T, at, v string, w, h int) {
	t.Helper()
	if strings.Contains(v, "\x1b") {
		t.Errorf("%s: an escape sequence in a screen drawn without colour: %q", at, v)
	}
	lines := strings.Split(v, "\n")
	if len(lines) != h {
		t.Errorf("%s: %d lines, want %d", at, len(lines), h)
	}
	for i, l := range lines {
		if got := lipgloss.Width(l); got != w {
			t.Errorf("%s: line %d is %d cells wide, want %d: %q", at, i+1, got, w, l)
		}
	}
}

// TestViewWithoutReference: a walk with no reference says at the top that
// it bisects no regression, and its table's baseline is not a "ref".
func TestViewWithoutReference(t *testing.T) {
	evs := tornWalk(t)
	start := *evs[0].Data.(*session.SessionStart)
	start.Reference, start.ReferenceSamples = "", nil
	evs[0].Data = &start
	m := NewReplay("sessions/quick-20250304-1000.jsonl", evs, nil, 0, false)
	playAll(t, m)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	v := m.View()
	for _, want := range []string{"NO REFERENCE: where the write time goes, not what regressed · log sessions/quick", "baseline p50"} {
		if !strings.Contains(v, want) {
			t.Errorf("the screen lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "ref p50") {
		t.Errorf("the screen calls the baseline a reference:\n%s", v)
	}
}

// TestViewConclusionWraps: a conclusion says what was measured and what is
// not known, which one line would cut off; the screen gives it three,
// and still fills the terminal exactly.
func TestViewConclusionWraps(t *testing.T) {
	evs := newWalkScript(t).started().reproduced().asked().running().concluded().rec.events
	const long = "flush latency of this disk; the volume type could not be tried here. " +
		"Not known: whether the volume type limits the flushes (volume unavailable: volume-type: not on EC2). " +
		"Measured: reproduce regressed (p50 3.37x the reference's); tmpfs gone (p50 0.24x the reference's, 0.07x the regression's); " +
		"fsync gone (p50 0.13x the reference's, 0.04x the regression's)."
	for _, e := range evs {
		if d, ok := e.Data.(*session.SessionEnd); ok {
			d.Conclusion = long
		}
	}
	m := NewReplay("walk.jsonl", evs, nil, 0, false)
	playAll(t, m)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	v := m.View()
	requireSize(t, "80x24", v, 80, 24)
	lines := strings.Split(v, "\n")
	var at int
	for i, l := range lines {
		if strings.HasPrefix(l, "conclusion: flush latency") {
			at = i
		}
	}
	if at == 0 || !strings.Contains(lines[at+1]+lines[at+2], "Not known: whether the volume type") || !strings.HasSuffix(strings.TrimRight(lines[at+2], " "), "…") {
		t.Errorf("the conclusion is not on three lines, the last cut with an ellipsis:\n%s", v)
	}
	if got := wrapWords("a b c", 80, 3); len(got) != 1 || got[0] != "a b c" {
		t.Errorf("a short conclusion takes %q, want one line", got)
	}
}
