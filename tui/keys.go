package tui

import "github.com/charmbracelet/bubbles/key"

// keyMap is every key of the investigation screen; help shows it.
type keyMap struct {
	Run, Skip, Extend, Note, Focus, Up, Down, Metric, Wider, Narrower, Freeze, Help, Quit key.Binding
	// replay
	Pause, Faster, Slower, NextStep, PrevStep key.Binding
	replay                                    bool
}

func newKeyMap(replay bool) keyMap {
	return keyMap{
		Run:      key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "run next step")),
		Skip:     key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "skip step")),
		Extend:   key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "extend +10s")),
		Note:     key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "note")),
		Focus:    key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "focus")),
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "select")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "select")),
		Metric:   key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "latency metric")),
		Wider:    key.NewBinding(key.WithKeys("+", "="), key.WithHelp("+", "longer window")),
		Narrower: key.NewBinding(key.WithKeys("-"), key.WithHelp("-", "shorter window")),
		Freeze:   key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "freeze view")),
		Help:     key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "keys")),
		Quit:     key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		Pause:    key.NewBinding(key.WithKeys(" "), key.WithHelp("space", "pause")),
		Faster:   key.NewBinding(key.WithKeys(">", "."), key.WithHelp(">", "faster")),
		Slower:   key.NewBinding(key.WithKeys("<", ","), key.WithHelp("<", "slower")),
		NextStep: key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "next step")),
		PrevStep: key.NewBinding(key.WithKeys("["), key.WithHelp("[", "previous step")),
		replay:   replay,
	}
}

func (k keyMap) ShortHelp() []key.Binding {
	if k.replay {
		return []key.Binding{k.Pause, k.Faster, k.Slower, k.NextStep, k.PrevStep, k.Metric, k.Help, k.Quit}
	}
	return []key.Binding{k.Run, k.Skip, k.Extend, k.Note, k.Metric, k.Help, k.Quit}
}

func (k keyMap) FullHelp() [][]key.Binding {
	if k.replay {
		return [][]key.Binding{{k.Pause, k.Faster, k.Slower}, {k.NextStep, k.PrevStep, k.Up, k.Down}, {k.Metric, k.Wider, k.Narrower, k.Freeze}, {k.Help, k.Quit}}
	}
	return [][]key.Binding{{k.Run, k.Skip, k.Extend, k.Note}, {k.Up, k.Down, k.Focus}, {k.Metric, k.Wider, k.Narrower, k.Freeze}, {k.Help, k.Quit}}
}
