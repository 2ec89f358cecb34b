package tui

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/perfbisect/perfbisect/probe/knob"
	"github.com/perfbisect/perfbisect/session"
	"github.com/perfbisect/perfbisect/session/playbook"
)

// The driver runs the session's Runner in the background and turns what it
// says and asks into messages. Update never blocks on it: events arrive
// through a re-armed command, answers leave through commands.

// eventMsg is one session event.
type eventMsg struct{ e session.Event }

// askMsg is the runner asking the operator, before a change or for a
// manual step; the answer goes back on reply.
type askMsg struct {
	title   string
	changes []knob.Change // before a step's changes
	lines   []string      // a manual step's instructions
	manual  bool
	reply   chan<- bool
	byHand  *byHand // a step made by hand: answered in manual.go
}

// stepDoneMsg says the runner finished a step. Its events travel on the
// driver's channel and this message as a command's result, so it can
// overtake them: seq is how many events the runner had emitted when the step
// ended, and the screen takes the message once it has applied that many
// (a step's end seen before its decision would pick the next step from a
// walk that has not taken it, and run the same step again).
type stepDoneMsg struct {
	step string
	res  session.StepState
	seq  int64
}

type driver struct {
	runner  *session.Runner
	msgs    chan tea.Msg
	emitted atomic.Int64 // events sent on msgs
	mu      sync.Mutex
	cancel  context.CancelFunc // of the step under way
}

func newDriver() *driver { return &driver{msgs: make(chan tea.Msg, 4096)} }

// emit is the runner's Emit: it runs on the runner's goroutine.
func (d *driver) emit(e session.Event) {
	d.emitted.Add(1)
	d.msgs <- eventMsg{e}
}

// confirm is the runner's Confirm: it waits for the operator's answer.
func (d *driver) confirm(ctx context.Context, step *playbook.Step, changes []knob.Change) (bool, error) {
	return d.ask(ctx, askMsg{title: "step " + step.ID + " will change this host", changes: changes})
}

// Manual is the runner's knob.Operator.
func (d *driver) Manual(ctx context.Context, title string, lines []string) (bool, error) {
	return d.ask(ctx, askMsg{title: title, lines: lines, manual: true})
}

func (d *driver) ask(ctx context.Context, m askMsg) (bool, error) {
	reply := make(chan bool, 1)
	m.reply = reply
	d.msgs <- m
	select {
	case ok := <-reply:
		return ok, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// listen delivers the next message; Update re-arms it after each one. The
// channel is never closed (a note's command may still emit after the
// session ends): the last listen waits until the process exits.
func (d *driver) listen() tea.Cmd {
	return func() tea.Msg { return <-d.msgs }
}

// start records the session and the host.
func (d *driver) start(ctx context.Context) tea.Cmd {
	return func() tea.Msg {
		d.runner.Start(ctx)
		return nil
	}
}

// runStep runs one step in the background; cancelStep stops it.
func (d *driver) runStep(ctx context.Context, step *playbook.Step) tea.Cmd {
	sctx, cancel := context.WithCancel(ctx)
	d.mu.Lock()
	d.cancel = cancel
	d.mu.Unlock()
	return func() tea.Msg {
		defer cancel()
		res := d.runner.Step(sctx, step)
		return stepDoneMsg{step: step.ID, res: res, seq: d.emitted.Load()}
	}
}

func (d *driver) skip(step *playbook.Step, why string) tea.Cmd {
	return func() tea.Msg {
		res := d.runner.Skip(step, why)
		return stepDoneMsg{step: step.ID, res: res, seq: d.emitted.Load()}
	}
}

// extend lengthens the running step; the runner records it.
func (d *driver) extend(by time.Duration) tea.Cmd {
	return func() tea.Msg {
		d.runner.Extend(by)
		return nil
	}
}

func (d *driver) note(step, text string) tea.Cmd {
	return func() tea.Msg {
		d.runner.Note(step, text)
		return nil
	}
}

// cancelStep stops the step under way; its knobs are put back by the
// runner, whose events show it happening.
func (d *driver) cancelStep() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cancel != nil {
		d.cancel()
	}
}

// end closes the session.
func (d *driver) end(how session.Ending, conclusion, why string) tea.Cmd {
	return func() tea.Msg {
		d.runner.End(how, conclusion, why)
		return endedMsg{}
	}
}

// endedMsg says the session is closed.
type endedMsg struct{}

// answer sends the operator's answer without blocking Update.
func answer(reply chan<- bool, ok bool) tea.Cmd {
	return func() tea.Msg {
		reply <- ok
		return nil
	}
}
