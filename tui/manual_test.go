package tui

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/perfbisect/perfbisect/internal/testutil/hosttest"
	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/session"
)

// A step made by hand, answered in the screen's modal and at the plain
// terminal's prompt: made here, or measured elsewhere and given as a file.

// measuredElsewhere writes `perfbisect probe --json` output of ss, as the
// bare host's would be.
func measuredElsewhere(t *testing.T, ss []probe.Sample) string {
	t.Helper()
	var evs []session.Event
	for i := range ss {
		evs = append(evs, session.NewEvent(time.Now(), "", &ss[i]))
	}
	path := filepath.Join(t.TempDir(), "bare.jsonl")
	if err := session.WriteLogFile(path, evs); err != nil {
		t.Fatal(err)
	}
	return path
}

// reproduceThenBare runs the reproduce step, then starts the one made by
// hand and waits for its question.
func (f *flow) reproduceThenBare(t *testing.T) {
	t.Helper()
	f.waitFor(t, "press enter to run the first step", shortTimeout)
	f.enter()
	f.waitFor(t, `reproduce: regressed → next: bare`, stepTimeout)
	f.enter()
	f.waitFor(t, `step bare is made by hand: Leave the cluster`, shortTimeout)
	f.waitFor(t, `f = measured elsewhere`, shortTimeout)
}

func TestFlowManualStepGivenAFile(t *testing.T) {
	t.Parallel()
	f := startFlowOn(t, readPlaybook(t, "testdata/byhand.yaml"), false)
	f.reproduceThenBare(t)
	file := measuredElsewhere(t, fastReference())

	f.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("f")})
	f.waitFor(t, `enter to use it`, shortTimeout)
	f.typed(file + ".missing")
	f.enter()
	f.waitFor(t, `cannot use that file: open`, shortTimeout)
	f.waitFor(t, `no such`, shortTimeout)
	f.key(tea.KeyMsg{Type: tea.KeyCtrlU}) // clear the line, type the right name
	f.typed(file)
	f.enter()
	f.waitFor(t, `bare +gone`, shortTimeout)
	f.waitFor(t, `the cluster`, shortTimeout)

	el := f.log.of(session.TypeElsewhere, "bare")
	if len(el) != 1 || el[0].Data.(*session.Elsewhere).File != file {
		t.Errorf("elsewhere events %+v, want one from %s", el, file)
	}
	if n := len(f.log.of(session.TypeSample, "bare")); n != len(fastReference()) {
		t.Errorf("%d seconds in the step, want the file's %d", n, len(fastReference()))
	}
	for _, e := range f.log.of(session.TypeKnob, "bare") {
		if a := e.Data.(*session.KnobEvent).Action; a != session.KnobPlanned {
			t.Errorf("knob %s: a step measured elsewhere changes nothing here", a)
		}
	}
}

func TestFlowManualStepMadeHere(t *testing.T) {
	t.Parallel()
	f := startFlowOn(t, readPlaybook(t, "testdata/byhand.yaml"), false)
	f.reproduceThenBare(t)

	f.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("y")})
	f.waitFor(t, `bare +running [1-9]`, shortTimeout)
	// The workload ran; then the undo is asked, and the step waits for it.
	f.waitFor(t, `Put back the change made by hand — done\?`, stepTimeout)
	f.waitFor(t, `start the cluster's agents`, shortTimeout)
	if ends := f.log.of(session.TypeStepEnd, "bare"); len(ends) != 0 {
		t.Fatalf("the step ended before the operator put the change back: %+v", ends[0].Data)
	}
	f.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("y")})
	f.waitFor(t, `not the cluster|the cluster`, shortTimeout)
	var actions []string
	for _, e := range f.log.of(session.TypeKnob, "bare") {
		actions = append(actions, string(e.Data.(*session.KnobEvent).Action))
	}
	if got := strings.Join(actions, " "); got != "planned applied reverted" {
		t.Errorf("knob events %s, want planned applied reverted", got)
	}
	if n := len(f.log.of(session.TypeSample, "bare")); n < 5 {
		t.Errorf("%d seconds measured here, want the step's", n)
	}
}

// The plain terminal: a file that cannot be read is said and asked again,
// and the one that can becomes the step's samples.
func TestPromptManualStep(t *testing.T) {
	pb := readPlaybook(t, "testdata/byhand.yaml")
	file := measuredElsewhere(t, fastReference())
	uu := map[string]struct {
		typed string
		want  session.State
		says  string
	}{
		"a file":                   {"f\nf " + file + ".missing\nf " + file + "\n", session.StateGone, "cannot use it: open " + file + ".missing"},
		"declined":                 {"\n", session.StateSkipped, "N = skip"},
		"made here, then put back": {"y\ny\n", "", "Put back the change made by hand: by hand\n    start the cluster's agents"},
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			spec := pb.Workload
			spec.Dir = filepath.Join(t.TempDir(), "data")
			r, err := session.NewRunner(session.Options{Playbook: pb, Host: hosttest.Local(t), Workload: spec,
				Operator: NewPrompt(strings.NewReader(u.typed), &out), Reference: fastReference(), MaxDuration: 6 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Step(context.Background(), &pb.Steps[0]); got.State != session.StateRegressed {
				t.Fatalf("reproduce %s (%s), want regressed against a reference in memory", got.State, got.Reason)
			}
			got := r.Step(context.Background(), &pb.Steps[1])
			if u.want != "" && got.State != u.want {
				t.Errorf("state %s (%s), want %s", got.State, got.Reason, u.want)
			}
			for _, want := range []string{"step bare is made by hand: Leave the cluster", "do:       stop the cluster's agents", u.says} {
				if !strings.Contains(out.String(), want) {
					t.Errorf("the terminal shows:\n%s\nwant %q", out.String(), want)
				}
			}
		})
	}
}
