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
	// closed is set once the screen is gone (finish): no runner call
	// starts after it, and calls waits for those under way.
	closed bool
	calls  sync.WaitGroup
}

// call runs do, one of the runner's methods, unless the screen is gone.
func (d *driver) call(do func()) bool {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return false
	}
	d.calls.Add(1)
	d.mu.Unlock()
	defer d.calls.Done()
	do()
	return true
}

// finish stops the step under way and waits until the runner is done with
// the host (its knobs put back), for a screen that stopped however it did:
// the operator left, the terminal vanished, the program was killed. Then
// it calls last, which may still use the runner. take gets every message
// sent meanwhile, which no screen reads any more.
func (d *driver) finish(take func(tea.Msg), last func()) {
	stop, drained := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(drained)
		for {
			select {
			case msg := <-d.msgs:
				take(msg)
			case <-stop:
				for { // what was sent before the stop
					select {
					case msg := <-d.msgs:
						take(msg)
					default:
						return
					}
				}
			}
		}
	}()
	d.mu.Lock()
	d.closed = true
	d.mu.Unlock()
	// The program's last listen may still wait on msgs, and would take an
	// event to a screen that is gone: it is the longest waiting receiver,
	// so this empty message goes to it before the step is stopped and its
	// reverts are said.
	d.msgs <- nil
	d.cancelStep()
	d.calls.Wait()
	last()
	close(stop)
	<-drained
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
		d.call(func() { d.runner.Start(ctx) })
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
		var res session.StepState
		if !d.call(func() { res = d.runner.Step(sctx, step) }) {
			return nil
		}
		return stepDoneMsg{step: step.ID, res: res, seq: d.emitted.Load()}
	}
}

func (d *driver) skip(step *playbook.Step, why string) tea.Cmd {
	return func() tea.Msg {
		var res session.StepState
		if !d.call(func() { res = d.runner.Skip(step, why) }) {
			return nil
		}
		return stepDoneMsg{step: step.ID, res: res, seq: d.emitted.Load()}
	}
}

// extend lengthens the running step; the runner records it.
func (d *driver) extend(by time.Duration) tea.Cmd {
	return func() tea.Msg {
		d.call(func() { d.runner.Extend(by) })
		return nil
	}
}

func (d *driver) note(step, text string) tea.Cmd {
	return func() tea.Msg {
		d.call(func() { d.runner.Note(step, text) })
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
		if !d.call(func() { d.runner.End(how, conclusion, why) }) {
			return nil
		}
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
