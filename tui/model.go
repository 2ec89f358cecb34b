// Package tui is perfbisect's face: the investigation screen, live and in
// replay, and its plain form for a walk without a screen (Printer, Prompt).
// It draws what the session says (events) and sends what the operator
// decides (run, skip, extend, note, quit); it owns no logic of the walk. Update does no I/O and never blocks: the runner works in the
// background and its events come back as messages.
package tui

import (
	"context"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/progress"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/session"
	"github.com/perfbisect/perfbisect/session/playbook"
	"github.com/perfbisect/perfbisect/tui/chart"
)

// windows are the chart time windows that + and - step through, in seconds.
var windows = []int{30, 60, 120, 300, 600}

// extendBy is how much x adds to the running step.
const extendBy = 10 * time.Second

// Model is the investigation screen.
type Model struct {
	st     *walkState
	pb     *playbook.Playbook // the live walk's: its steps are run by id
	now    time.Time          // the last tick of the clock (live only)
	keys   keyMap
	help   help.Model
	bar    progress.Model
	input  textinput.Model
	styles styles
	color  bool
	width  int
	height int

	// what the operator set
	selected int
	focus    int         // 0: steps, 1: charts
	metric   probe.Field // the latency chart's field
	window   int         // index in windows
	frozen   *walkState
	showHelp bool

	// live
	ctx         context.Context
	drv         *driver
	applied     int64        // events of the driver applied so far
	done        *stepDoneMsg // a step's end that came before its last events
	running     bool
	ask         *askMsg
	noting      bool
	confirmQuit bool
	quitting    bool
	interrupted bool // the quit is a SIGTERM's, not the operator's
	ended       bool

	// replay
	rp *replayer

	logPath string
	bufs    [3][]float64 // chart series, reused frame to frame

}

// Options configure the live screen.
type Options struct {
	Options session.Options // the walk; Emit, Confirm and Operator are set here
	Yes     bool            // changes were approved in advance (--yes)
	Color   bool
	Log     func(session.Event) // also called for every event (the session log)
	LogPath string              // shown in the header
}

// NewLive returns the screen of a live walk. ctx ends the walk.
func NewLive(ctx context.Context, o Options) (*Model, error) {
	drv := newDriver()
	opt := o.Options
	opt.Emit = func(e session.Event) {
		if o.Log != nil {
			o.Log(e)
		}
		drv.emit(e)
	}
	opt.Confirm = drv.confirm
	if o.Yes {
		opt.Confirm = nil
	}
	opt.Operator = drv
	r, err := session.NewRunner(opt)
	if err != nil {
		return nil, err
	}
	drv.runner = r
	m := newModel(newWalkState(), newKeyMap(false), o.Color)
	m.ctx, m.drv, m.logPath, m.pb = ctx, drv, o.LogPath, opt.Playbook
	return m, nil
}

func newModel(st *walkState, keys keyMap, color bool) *Model {
	in := textinput.New()
	in.Placeholder = "what you saw or did"
	in.CharLimit = 500
	bar := progress.New(progress.WithoutPercentage(), progress.WithSolidFill("7"))
	bar.Full, bar.Empty = '#', '.'
	return &Model{st: st, keys: keys, help: help.New(), bar: bar, input: in, styles: newStyles(), color: color,
		metric: probe.FieldP99, window: 1, width: 80, height: 24}
}

func (m *Model) Init() tea.Cmd {
	if m.rp != nil {
		return m.rp.init()
	}
	return tea.Batch(m.drv.listen(), m.drv.start(m.ctx), tick())
}

// interruptMsg is SIGTERM or SIGINT from outside the screen.
type interruptMsg struct{}

// Interrupt is the message to send the program when the process is told to
// stop: the screen quits as if the operator had, putting the host back.
func Interrupt() tea.Msg { return interruptMsg{} }

// leaveMsg ends the program after the last screen has been seen.
type leaveMsg struct{}

// lingerOnQuit is how long the last screen stays after a quit.
const lingerOnQuit = 1500 * time.Millisecond

// Summary says in a few lines how the walk ended, for the terminal after
// the screen is gone: the conclusion, and every change that was put back
// or could not be.
func (m *Model) Summary() string {
	var b strings.Builder
	for _, l := range m.st.reverts {
		b.WriteString(l + "\n")
	}
	if left := m.st.NotPutBack(); len(left) > 0 && m.ended {
		b.WriteString(notPutBackLine(left) + "\n")
	}
	if c := m.st.Conclusion(); c != "" {
		b.WriteString("conclusion: " + c + "\n")
	} else if end := m.st.End; end != nil {
		b.WriteString("session " + string(end.Ended) + suffix(": ", end.Error) + "\n")
	}
	return b.String()
}

// Finish puts the host back and closes the session once the program has
// stopped, whatever stopped it: after a quit it has nothing to do, but a
// vanished terminal or a killed program leaves a step running. That step
// is stopped and its knobs put back, and a session not yet closed ends
// interrupted, saying why. The screen's state takes the events it missed,
// so Summary tells them. Call it after the program's Run returns.
func (m *Model) Finish(why string) {
	if m.drv == nil {
		return // a replay changes nothing
	}
	m.drv.finish(func(msg tea.Msg) {
		if e, ok := msg.(eventMsg); ok {
			m.st.apply(e.e)
		}
	}, func() {
		if w := m.drv.runner.Walk(); w.Start != nil && w.End == nil {
			m.drv.runner.End(session.EndInterrupted, "", why)
		}
	})
}

// Walk is a live walk as its runner did it: read it after Finish.
func (m *Model) Walk() *session.Walk { return m.drv.runner.Walk() }

// tickMsg refreshes the clock once a second.
type tickMsg time.Time

func tick() tea.Cmd { return tea.Tick(time.Second, func(t time.Time) tea.Msg { return tickMsg(t) }) }

func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.help.Width = msg.Width
		return m, nil
	case tickMsg:
		if m.ended {
			return m, nil
		}
		m.now = time.Time(msg) // the header's clock goes on between events
		return m, tick()
	case eventMsg:
		m.st.apply(msg.e)
		m.applied++
		if d := m.done; d != nil && m.applied >= d.seq {
			m.done = nil
			return m, tea.Batch(m.drv.listen(), m.stepDone(*d))
		}
		return m, m.drv.listen()
	case askMsg:
		m.ask = &msg
		return m, m.drv.listen()
	case resultMsg:
		return m, m.resultRead(msg)
	case stepDoneMsg:
		if m.applied < msg.seq {
			m.done = &msg // its last events are still on their way
			return m, nil
		}
		return m, m.stepDone(msg)
	case endedMsg:
		m.ended = true
		if m.quitting {
			// Stay a moment on the screen that shows the knobs put back.
			if m.st.RevertFailed() {
				m.st.note("session closed; a knob could NOT be put back (see above) — leaving")
			} else {
				m.st.note("session closed; every knob is put back — leaving")
			}
			return m, tea.Tick(lingerOnQuit, func(time.Time) tea.Msg { return leaveMsg{} })
		}
		return m, nil
	case leaveMsg:
		return m, tea.Quit
	case interruptMsg:
		if m.rp != nil || m.ended {
			return m, tea.Quit
		}
		if m.quitting && !m.running {
			return m, nil // the session is being closed already
		}
		m.quitting, m.interrupted = true, true
		if m.running {
			m.st.note("interrupted: stopping the step and putting every knob back")
			m.drv.cancelStep()
			return m, nil
		}
		return m, m.drv.end(session.EndInterrupted, "", "interrupted")
	case replayMsg:
		cmd := m.rp.update(m, msg)
		if cur := m.st.Current(); cur != nil {
			m.selected = m.st.Index(cur.ID) // follow the step being replayed
		}
		return m, cmd
	case tea.KeyMsg:
		return m, m.key(msg)
	}
	return m, nil
}

func (m *Model) stepDone(msg stepDoneMsg) tea.Cmd {
	m.running = false
	switch {
	case m.quitting && m.interrupted:
		return m.drv.end(session.EndInterrupted, "", "interrupted during step "+msg.step)
	case m.quitting:
		return m.drv.end(session.EndQuit, "", "the operator quit during step "+msg.step)
	case msg.res.RevertFailure() != nil:
		return m.drv.end(session.EndFailed, "", msg.res.RevertFailure().Error())
	case msg.res.Decision != nil && msg.res.Decision.Conclusion != "":
		return m.drv.end(session.EndConcluded, msg.res.Decision.Conclusion, "")
	}
	if next, ok := m.st.Next(); ok {
		m.selected = m.st.Index(next)
	}
	return nil
}

func (m *Model) key(k tea.KeyMsg) tea.Cmd {
	if k.Type == tea.KeyCtrlC && m.confirmQuit {
		// A second Ctrl-C answers "quit?" with yes.
		m.confirmQuit = false
		return m.stopAndQuit()
	}
	if k.Type == tea.KeyCtrlC && (m.ask != nil || m.noting) {
		// Ctrl-C out of a dialog: answer no, then quit as q would.
		var cmds []tea.Cmd
		if m.ask != nil {
			cmds = append(cmds, m.ask.no())
			m.ask = nil
		}
		m.noting = false
		return tea.Batch(append(cmds, m.quit())...)
	}
	// Dialogs take every key first.
	switch {
	case m.ask != nil:
		return m.answerAsk(k)
	case m.noting:
		return m.typeNote(k)
	case m.confirmQuit:
		return m.answerQuit(k)
	case m.showHelp && !key.Matches(k, m.keys.Quit):
		m.showHelp = false
		return nil
	}
	switch {
	case key.Matches(k, m.keys.Quit):
		return m.quit()
	case key.Matches(k, m.keys.Help):
		m.showHelp = true
	case key.Matches(k, m.keys.Focus):
		m.focus = 1 - m.focus
	case key.Matches(k, m.keys.Up):
		m.selected = max(0, m.selected-1)
	case key.Matches(k, m.keys.Down):
		m.selected = min(len(m.st.Steps)-1, m.selected+1)
	case key.Matches(k, m.keys.Metric):
		// Only the latencies the workload measures (pgbench: the average).
		m.metric = chart.Measured(chart.NextLatency(m.metric), m.st.Measures())
	case key.Matches(k, m.keys.Wider):
		m.window = min(len(windows)-1, m.window+1)
	case key.Matches(k, m.keys.Narrower):
		m.window = max(0, m.window-1)
	case key.Matches(k, m.keys.Freeze):
		m.toggleFreeze()
	case m.rp != nil:
		return m.rp.key(m, k)
	case key.Matches(k, m.keys.Run):
		return m.runNext()
	case key.Matches(k, m.keys.Skip):
		return m.skipNext()
	case key.Matches(k, m.keys.Extend):
		if m.running {
			// The runner records it (an extend event), and the progress
			// bar shows the new length when that event comes back.
			return m.drv.extend(extendBy)
		}
	case key.Matches(k, m.keys.Note):
		if !m.ended {
			m.noting = true
			m.input.SetValue("")
			return m.input.Focus()
		}
	}
	return nil
}

// step to run: the selected one when it is still pending, else the next.
func (m *Model) target() (*playbook.Step, bool) {
	id, ok := m.st.Next()
	if m.selected >= 0 && m.selected < len(m.st.Steps) && m.st.Steps[m.selected].State == session.StatePending {
		id, ok = m.st.Steps[m.selected].ID, true
	}
	if !ok || m.pb == nil {
		return nil, false
	}
	return m.pb.Step(id)
}

func (m *Model) runNext() tea.Cmd {
	return m.startNext(func(step *playbook.Step) tea.Cmd { return m.drv.runStep(m.ctx, step) })
}

func (m *Model) skipNext() tea.Cmd {
	return m.startNext(func(step *playbook.Step) tea.Cmd { return m.drv.skip(step, "skipped by the operator") })
}

// startNext hands the step to run next to do (run it, or skip it), unless
// one is under way or the walk is over.
func (m *Model) startNext(do func(*playbook.Step) tea.Cmd) tea.Cmd {
	if m.running || m.ended || m.st.Conclusion() != "" {
		return nil
	}
	step, ok := m.target()
	if !ok {
		return nil
	}
	m.running = true
	m.selected = m.st.Index(step.ID)
	return do(step)
}

func (m *Model) quit() tea.Cmd {
	switch {
	case m.rp != nil || m.ended:
		return tea.Quit
	case m.running:
		m.confirmQuit = true
		return nil
	}
	m.quitting = true
	if c := m.st.Conclusion(); c != "" {
		return m.drv.end(session.EndConcluded, c, "")
	}
	return m.drv.end(session.EndQuit, "", "the operator quit")
}

func (m *Model) answerQuit(k tea.KeyMsg) tea.Cmd {
	m.confirmQuit = false
	if k.String() != "y" && k.String() != "Y" {
		return nil
	}
	return m.stopAndQuit()
}

// stopAndQuit quits once the operator has said yes: it stops the running
// step first, whose end then closes the session.
func (m *Model) stopAndQuit() tea.Cmd {
	if !m.running {
		// The step ended while the question was open: nothing to stop.
		return m.quit()
	}
	m.quitting = true
	m.st.note("quitting: stopping the step and putting every knob back")
	m.drv.cancelStep()
	return nil
}

func (m *Model) answerAsk(k tea.KeyMsg) tea.Cmd {
	if m.ask.byHand != nil {
		return m.answerByHand(k)
	}
	var ok bool
	switch k.String() {
	case "y", "Y":
		ok = true
	case "n", "N", "esc":
	default:
		return nil
	}
	reply := m.ask.reply
	m.ask = nil
	return answer(reply, ok)
}

func (m *Model) typeNote(k tea.KeyMsg) tea.Cmd {
	switch k.Type {
	case tea.KeyEsc:
		m.noting = false
		return nil
	case tea.KeyEnter:
		m.noting = false
		text := m.input.Value()
		if text == "" {
			return nil
		}
		step := ""
		if cur := m.st.Current(); cur != nil {
			step = cur.ID
		}
		return m.drv.note(step, text)
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	return cmd
}

// toggleFreeze keeps drawing a copy of the charts' data while the probe
// goes on filling the live one.
func (m *Model) toggleFreeze() {
	if m.frozen != nil {
		m.frozen = nil
		return
	}
	m.frozen = &walkState{ring: m.st.ring.Clone(), reference: m.st.reference, refHas: m.st.refHas, repro: m.st.repro.Clone()}
}
