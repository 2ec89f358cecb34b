package tui

import (
	"context"
	"strings"

	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/perfbisect/perfbisect/probe/knob"
	"github.com/perfbisect/perfbisect/session"
	"github.com/perfbisect/perfbisect/session/playbook"
)

// A step made by hand asks in a small modal: y, the change is made here
// (the step runs its workload); f, then a file, the measurement taken on
// another machine (read in a command, never in Update); n, skip it.

// byHand is the state of that modal, in the askMsg that opened it.
type byHand struct {
	reply   chan<- manualReply
	file    *textinput.Model // while a file is typed
	loading bool             // while the file is read
	err     string           // why the last file could not be used
}

// manualReply is the operator's answer to a step made by hand.
type manualReply struct {
	res  *session.Result
	here bool
}

// resultMsg is a file read for the modal: a measurement, or why not.
type resultMsg struct {
	path string
	res  *session.Result
	err  error
}

// ManualStep is the runner's session.ManualOperator.
func (d *driver) ManualStep(ctx context.Context, step *playbook.Step, changes []knob.Change) (*session.Result, bool, error) {
	reply := make(chan manualReply, 1)
	d.msgs <- askMsg{title: "step " + step.ID + " is made by hand: " + step.Title, changes: changes, byHand: &byHand{reply: reply}}
	select {
	case r := <-reply:
		return r.res, r.here, nil
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
}

// no answers the question open with no: skip the step, or the change.
func (a *askMsg) no() tea.Cmd {
	if a.byHand != nil {
		return replyManual(a.byHand.reply, manualReply{})
	}
	return answer(a.reply, false)
}

func replyManual(reply chan<- manualReply, r manualReply) tea.Cmd {
	return func() tea.Msg {
		reply <- r
		return nil
	}
}

// answerByHand takes a key of the modal.
func (m *Model) answerByHand(k tea.KeyMsg) tea.Cmd {
	b := m.ask.byHand
	if b.loading {
		return nil
	}
	if b.file != nil {
		switch k.Type {
		case tea.KeyEsc:
			b.file = nil
			return nil
		case tea.KeyEnter:
			path := strings.TrimSpace(b.file.Value())
			if path == "" {
				return nil
			}
			b.loading, b.err = true, ""
			return func() tea.Msg {
				res, err := session.LoadResult(path)
				return resultMsg{path: path, res: res, err: err}
			}
		}
		in, cmd := b.file.Update(k)
		b.file = &in
		return cmd
	}
	switch k.String() {
	case "y", "Y":
		m.ask = nil
		return replyManual(b.reply, manualReply{here: true})
	case "f", "F":
		in := textinput.New()
		in.Placeholder = "path of the file measured elsewhere"
		in.CharLimit = 4096
		b.file = &in
		return in.Focus()
	case "n", "N", "esc":
		m.ask = nil
		return replyManual(b.reply, manualReply{})
	}
	return nil
}

// resultRead takes the file read for the modal: a measurement answers it,
// an error is shown there and another file may be given.
func (m *Model) resultRead(msg resultMsg) tea.Cmd {
	if m.ask == nil || m.ask.byHand == nil || !m.ask.byHand.loading {
		return nil // the question was closed meanwhile (a quit)
	}
	b := m.ask.byHand
	b.loading = false
	if msg.err != nil {
		b.err = msg.err.Error()
		return nil
	}
	m.ask = nil
	return replyManual(b.reply, manualReply{res: msg.res})
}

// byHandLines are the modal's last lines: the file being typed, or the
// choice.
func (b *byHand) lines() []string {
	var l []string
	if b.err != "" {
		l = append(l, "cannot use that file: "+b.err, "")
	}
	switch {
	case b.loading:
		l = append(l, "reading "+b.file.Value()+" …")
	case b.file != nil:
		l = append(l, "the measurement taken elsewhere: perfbisect probe --json output, a session log,",
			"or saved sysbench, pgbench or fio output (enter to use it, esc to go back)", b.file.View())
	default:
		l = append(l, "y = made here (the step runs its workload) · f = measured elsewhere: give its file · n = skip this step")
	}
	return l
}
