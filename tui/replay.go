package tui

import (
	"fmt"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/perfbisect/perfbisect/internal/jsonl"
	"github.com/perfbisect/perfbisect/session"
)

// readablePace is the pause between two recorded seconds when no speed is
// given: fast, yet each second can be seen.
const readablePace = 100 * time.Millisecond

// maxPause caps a pause of the recording (an operator's think time).
const maxPause = 2 * time.Second

// replayer plays a recorded session into the same screen.
type replayer struct {
	path   string
	events []session.Event
	pos    int     // next event to apply
	speed  float64 // times the recorded pace; 0: as fast as readable
	paused bool
	done   bool
	torn   string // why the log ends early, if it does
	gen    int    // drops ticks scheduled before a jump or a pause
}

// replayMsg advances the replay; gen ties it to the schedule it came from.
type replayMsg struct{ gen int }

// NewReplay returns the screen of a recorded session. bad are the lines the
// reader could not use (a torn tail is said in the header).
func NewReplay(path string, events []session.Event, bad []*jsonl.SyntaxError, speed float64, color bool) *Model {
	rp := &replayer{path: path, events: events, speed: speed}
	for _, b := range bad {
		if b.Torn {
			rp.torn = fmt.Sprintf("the log is cut short at line %d (a crash?): replaying up to its last complete second", b.Line)
		}
	}
	m := newModel(newWalkState(), newKeyMap(true), color)
	m.rp = rp
	return m
}

func (rp *replayer) init() tea.Cmd { return rp.schedule(0) }

func (rp *replayer) schedule(d time.Duration) tea.Cmd {
	gen := rp.gen
	if d <= 0 {
		return func() tea.Msg { return replayMsg{gen} }
	}
	return tea.Tick(d, func(time.Time) tea.Msg { return replayMsg{gen} })
}

// update applies the events due now and schedules the next one.
func (rp *replayer) update(m *Model, msg replayMsg) tea.Cmd {
	if msg.gen != rp.gen || rp.paused || rp.done {
		return nil
	}
	// Apply everything up to and including the next sample: the other
	// events of a second come with it.
	for rp.pos < len(rp.events) {
		e := rp.events[rp.pos]
		m.st.apply(e)
		rp.pos++
		if e.Type == session.TypeSample {
			break
		}
	}
	if rp.pos >= len(rp.events) {
		rp.done = true
		return nil
	}
	return rp.schedule(rp.delay())
}

// delay is the pause before the next event: the recorded gap divided by
// the speed, or the readable pace.
func (rp *replayer) delay() time.Duration {
	if rp.speed <= 0 {
		return readablePace
	}
	prev, next := rp.events[rp.pos-1].Time, rp.events[rp.pos].Time
	d := time.Duration(float64(next.Sub(prev)) / rp.speed)
	return min(max(d, 0), maxPause)
}

func (rp *replayer) key(m *Model, k tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(k, m.keys.Pause):
		rp.paused = !rp.paused
		rp.gen++
		if !rp.paused {
			return rp.schedule(0)
		}
	case key.Matches(k, m.keys.Faster):
		rp.speed = nextSpeed(rp.speed, 2)
	case key.Matches(k, m.keys.Slower):
		rp.speed = nextSpeed(rp.speed, 0.5)
	case key.Matches(k, m.keys.NextStep):
		return rp.jump(m, rp.stepStart(rp.pos, +1))
	case key.Matches(k, m.keys.PrevStep):
		return rp.jump(m, rp.stepStart(rp.pos-2, -1))
	}
	return nil
}

// nextSpeed steps the speed; from "readable" it starts at 1x.
func nextSpeed(s, by float64) float64 {
	if s <= 0 {
		s = 1
	}
	return min(max(s*by, 0.25), 256)
}

func (rp *replayer) speedText() string {
	switch {
	case rp.paused:
		return "paused"
	case rp.speed <= 0:
		return "readable"
	}
	return fmt.Sprintf("x%g", rp.speed)
}

// stepStart finds the index of the step_start event from i in direction
// dir, or the end (forward) / the beginning (back).
func (rp *replayer) stepStart(i, dir int) int {
	for ; i >= 0 && i < len(rp.events); i += dir {
		if rp.events[i].Type == session.TypeStepStart && i != rp.pos-1 {
			return i
		}
	}
	if dir > 0 {
		return len(rp.events)
	}
	return 0
}

// jump shows the replay as it stood just after event to-1: forward by
// applying what lies between, back by rebuilding from the start (an
// operator's key, not a frame: once per press).
func (rp *replayer) jump(m *Model, to int) tea.Cmd {
	if to < rp.pos {
		m.st = newWalkState()
		rp.pos = 0
	}
	for rp.pos < to && rp.pos < len(rp.events) {
		m.st.apply(rp.events[rp.pos])
		rp.pos++
	}
	if rp.pos < len(rp.events) {
		// Show the step's start itself.
		m.st.apply(rp.events[rp.pos])
		rp.pos++
	}
	rp.done = rp.pos >= len(rp.events)
	rp.gen++
	if rp.paused || rp.done {
		return nil
	}
	return rp.schedule(rp.delay())
}
