package tui

import (
	"fmt"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/perfbisect/perfbisect/probe/host"
	"github.com/perfbisect/perfbisect/session/playbook"
)

func setupFacts() host.Facts {
	return host.Facts{Hostname: "db-7", Kernel: "6.8.0-1019-aws", CPU: "Intel(R) Xeon(R) Platinum 8259CL", CPUs: 8, Root: true,
		DataDir: dataDir, MountPoint: "/var/lib/pg", Filesystem: "ext4", Device: "nvme1n1", Scheduler: "mq-deadline"}
}

func press(s *Setup, keys ...tea.KeyMsg) tea.Cmd {
	var cmd tea.Cmd
	for _, k := range keys {
		_, cmd = s.Update(k)
	}
	return cmd
}

var (
	enterKey = tea.KeyMsg{Type: tea.KeyEnter}
	tabKey   = tea.KeyMsg{Type: tea.KeyTab}
	rightKey = tea.KeyMsg{Type: tea.KeyRight}
)

func runes(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

func TestSetupView(t *testing.T) {
	s := NewSetup(setupFacts(), []*playbook.Playbook{quickPlaybook(t)}, "quick", dataDir)
	for _, sz := range sizes {
		s.Update(tea.WindowSizeMsg{Width: sz.w, Height: sz.h})
		at := fmt.Sprintf("%dx%d", sz.w, sz.h)
		requireSize(t, at, s.View(), sz.w, sz.h)
		if sz.w == 80 {
			requireGolden(t, "setup_"+at, s.View())
		}
	}
}

// TestSetupChoice: enter takes the defaults; ←/→ pick the playbook; tab
// moves to the fields, where q is a letter, not a quit.
func TestSetupChoice(t *testing.T) {
	pbs := []*playbook.Playbook{quickPlaybook(t), readPlaybook(t, "testdata/quick.yaml")}
	pbs[1].Name = "other"

	s := NewSetup(setupFacts(), pbs, "other", dataDir)
	if cmd := press(s, enterKey); cmd == nil || cmd() != tea.Quit() {
		t.Fatal("enter does not end the setup")
	}
	if got, want := s.Choice(), (Choice{Playbook: "other", Dir: dataDir, Start: true}); got != want {
		t.Errorf("enter with the defaults: %+v, want %+v", got, want)
	}

	s = NewSetup(setupFacts(), pbs, "quick", dataDir)
	press(s, rightKey, tabKey, rightKey, rightKey, tabKey, runes("/q"), tabKey, runes("ref.jsonl"))
	if cmd := press(s, enterKey); cmd == nil {
		t.Fatal("enter does not end the setup")
	}
	if got, want := s.Choice(), (Choice{Playbook: "other", Workload: "pgbench", Dir: dataDir + "/q", Reference: "ref.jsonl", Start: true}); got != want {
		t.Errorf("after choosing: %+v, want %+v", got, want)
	}

	s = NewSetup(setupFacts(), pbs, "quick", dataDir)
	if cmd := press(s, runes("q")); cmd == nil || cmd() != tea.Quit() || s.Choice().Start {
		t.Errorf("q on the playbook line: start %v, want a quit without starting", s.Choice().Start)
	}
}
