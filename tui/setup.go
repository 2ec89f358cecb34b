package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/perfbisect/perfbisect/probe/host"
	"github.com/perfbisect/perfbisect/session/playbook"
)

// Choice is what the setup screen settles: Enter with the defaults starts.
type Choice struct {
	Playbook string
	// Workload replaces the playbook's ("sysbench", "pgbench"), with that
	// tool's defaults; "" keeps the playbook's.
	Workload  string
	Dir       string
	Reference string
	Start     bool // false: the operator quit instead
}

// Setup is the short screen before a walk: the host as detected, and the
// playbook, data directory and reference, each with a default.
type Setup struct {
	facts     host.Facts
	playbooks []*playbook.Playbook
	pick      int
	workload  int // index in setupWorkloads
	dir, ref  textinput.Model
	field     int // 0 playbook, 1 workload, 2 dir, 3 reference
	styles    styles
	width     int
	height    int
	choice    Choice
}

// setupWorkloads are the workloads the setup offers: the playbook's, or a
// database benchmark on a throwaway server (fio and command need a job or
// a command line: run them with --workload).
var setupWorkloads = []struct{ name, text string }{
	{"", "the playbook's"},
	{"sysbench", "sysbench oltp_insert on a throwaway MariaDB"},
	{"pgbench", "pgbench tpcb-like on a throwaway PostgreSQL"},
}

const setupFields = 4

// NewSetup shows facts (gathered by the caller) and offers the embedded
// playbooks with def chosen.
func NewSetup(facts host.Facts, playbooks []*playbook.Playbook, def, dir string) *Setup {
	s := &Setup{facts: facts, playbooks: playbooks, styles: newStyles(), width: 80, height: 24}
	for i, pb := range playbooks {
		if pb.Name == def {
			s.pick = i
		}
	}
	s.dir = textinput.New()
	s.dir.SetValue(dir)
	s.dir.Prompt = ""
	s.ref = textinput.New()
	s.ref.Placeholder = "none: the reproduce step is the baseline"
	s.ref.Prompt = ""
	return s
}

// Choice is the operator's answer, once the program has ended.
func (s *Setup) Choice() Choice { return s.choice }

func (s *Setup) Init() tea.Cmd { return nil }

func (s *Setup) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		s.width, s.height = msg.Width, msg.Height
	case tea.KeyMsg:
		switch msg.String() {
		case "ctrl+c", "esc":
			return s, tea.Quit
		case "q":
			if s.field == 0 {
				return s, tea.Quit
			}
		case "enter":
			s.choice = Choice{Playbook: s.playbooks[s.pick].Name, Workload: setupWorkloads[s.workload].name,
				Dir: s.dir.Value(), Reference: s.ref.Value(), Start: true}
			return s, tea.Quit
		case "tab", "down":
			return s, s.focus(s.field + 1)
		case "shift+tab", "up":
			return s, s.focus(s.field + setupFields - 1)
		case "left", "right", " ":
			step := func(i, n int) int {
				if msg.String() == "left" {
					return (i + n - 1) % n
				}
				return (i + 1) % n
			}
			switch {
			case s.field == 0 && len(s.playbooks) > 0:
				s.pick = step(s.pick, len(s.playbooks))
				return s, nil
			case s.field == 1:
				s.workload = step(s.workload, len(setupWorkloads))
				return s, nil
			}
		}
		var cmd tea.Cmd
		switch s.field {
		case 2:
			s.dir, cmd = s.dir.Update(msg)
		case 3:
			s.ref, cmd = s.ref.Update(msg)
		}
		return s, cmd
	}
	return s, nil
}

func (s *Setup) focus(f int) tea.Cmd {
	s.field = f % setupFields
	s.dir.Blur()
	s.ref.Blur()
	switch s.field {
	case 2:
		return s.dir.Focus()
	case 3:
		return s.ref.Focus()
	}
	return nil
}

func (s *Setup) View() string {
	f := s.facts
	w := max(s.width, 40)
	lines := []string{
		s.styles.title.Render("perfbisect") + " — bisect a write regression, one measured step at a time",
		"",
		fmt.Sprintf("host       %s · kernel %s · %d CPUs · %s", f.Hostname, f.Kernel, f.CPUs, f.CPU),
		fmt.Sprintf("data dir   %s", fsText(&f)),
		"",
	}
	mark := func(i int) string {
		if s.field == i {
			return "> "
		}
		return "  "
	}
	pb := "(none)"
	desc := ""
	wl := setupWorkloads[s.workload].text
	if len(s.playbooks) > 0 {
		p := s.playbooks[s.pick]
		pb = fmt.Sprintf("%s  (%d steps; ←/→ to change)", p.Name, len(p.Steps))
		desc = strings.Join(strings.Fields(p.Description), " ")
		if s.workload == 0 {
			wl += ": " + p.Workload.Describe()
		}
	}
	lines = append(lines,
		mark(0)+"playbook   "+pb,
		"             "+s.styles.dim.Render(truncate(desc, w-13)),
		mark(1)+"workload   "+truncate(wl, w-13),
		mark(2)+"data dir   "+s.dir.View(),
		mark(3)+"reference  "+s.ref.View(),
		"",
		"Enter starts · tab moves · esc quits",
		s.styles.dim.Render("Before any change to this host you are shown exactly what it does and how it is put back."),
	)
	return fit(strings.Join(lines, "\n"), w, max(s.height, 12))
}
