package tui

import (
	"github.com/charmbracelet/lipgloss"
	"github.com/perfbisect/perfbisect/session"
)

// styles are the few styles of the screen. With NO_COLOR (or a terminal
// without colour) lipgloss renders them as plain text.
type styles struct {
	title, badge, dim, bold, warn, good, bad, selected, box lipgloss.Style
}

func newStyles() styles {
	return styles{
		title:    lipgloss.NewStyle().Bold(true),
		badge:    lipgloss.NewStyle().Bold(true).Reverse(true),
		dim:      lipgloss.NewStyle().Faint(true),
		bold:     lipgloss.NewStyle().Bold(true),
		warn:     lipgloss.NewStyle().Foreground(lipgloss.Color("3")).Bold(true),
		good:     lipgloss.NewStyle().Foreground(lipgloss.Color("2")),
		bad:      lipgloss.NewStyle().Foreground(lipgloss.Color("1")),
		selected: lipgloss.NewStyle().Reverse(true),
		box:      lipgloss.NewStyle().Border(lipgloss.NormalBorder()).Padding(0, 1),
	}
}

// stateMark is a step's state in one character and its style.
func (s styles) stateMark(st session.State) (string, lipgloss.Style) {
	switch st {
	case session.StateRunning:
		return ">", s.bold
	case session.StateGone:
		return "+", s.good
	case session.StatePersists, session.StateRegressed:
		return "x", s.bad
	case session.StateMeasured, session.StateSame:
		return "=", s.title
	case session.StateInconclusive:
		return "?", s.warn
	case session.StateUnavailable, session.StateSkipped, session.StateFailed, session.StateInterrupted:
		return "-", s.dim
	}
	return ".", s.dim
}
