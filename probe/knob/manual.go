package knob

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/perfbisect/perfbisect/probe"
)

var manualSettings = map[string]string{
	"instructions": "what the operator does by hand, one step a line (required)",
	"undo":         "how the operator puts it back, one step a line (default: nothing to put back)",
}

func init() {
	register(Kind{
		Name:     "manual",
		Summary:  "ask the operator to make a change by hand (and to put it back), and wait until they say it is done",
		Settings: manualSettings,
		New:      newManual,
	})
}

// ErrDeclined is the error of a manual step the operator said they would
// not do.
var ErrDeclined = errors.New("the operator declined")

// noOperator is why a manual knob cannot run without someone to ask.
const noOperator = "nobody to ask: run interactively or drop this step"

type manual struct {
	name         string // the knob's name: manual, or host
	title        string
	instructions []string
	undo         []string
	// nothingToUndo is Undo when there are no undo instructions.
	nothingToUndo string
	settings      Settings
}

func newManual(s Settings) (Knob, error) {
	text, err := required("manual", s, "instructions", "what the operator does by hand, one step a line")
	if err != nil {
		return nil, err
	}
	k := &manual{
		name: "manual", title: "Make this change by hand", instructions: lines(text),
		nothingToUndo: "nothing: no undo instructions were given", settings: s,
	}
	if u := s["undo"]; strings.TrimSpace(u) != "" {
		k.undo = lines(u)
	}
	return k, nil
}

func (k *manual) Plan(ctx context.Context, env Env, w probe.Spec) (Change, error) {
	c := Change{Knob: k.name, Settings: k.settings, Do: k.instructions, Undo: k.undo}
	if len(k.undo) == 0 {
		c.Undo = []string{k.nothingToUndo}
	}
	if env.Operator == nil {
		return c, &Unavailable{Knob: k.name, Reason: noOperator}
	}
	return c, nil
}

func (k *manual) Apply(ctx context.Context, env Env, w probe.Spec) (probe.Spec, Change, Revert, error) {
	c, err := k.Plan(ctx, env, w)
	if err != nil {
		return w, c, nil, err
	}
	op := env.Operator
	if err := ask(ctx, op, k.title, k.instructions); err != nil {
		// Nothing was confirmed, so nothing is known to have changed.
		return w, c, nil, fmt.Errorf("%s: %w", k.name, err)
	}
	c.After = "done by the operator"
	if len(k.undo) == 0 {
		return w, c, nothingToRevert, nil
	}
	return w, c, once(func(ctx context.Context) error {
		if err := ask(ctx, op, "Put back the change made by hand", k.undo); err != nil {
			return fmt.Errorf("the change made by hand is still in place: %v (put it back by hand: %s)", err, strings.Join(k.undo, "; "))
		}
		return nil
	}), nil
}

// ByHand says whether the knob called name is one only a person turns
// (manual, host): a step of those alone may be measured on another machine
// instead, its samples given from a file.
func ByHand(name string) bool { return name == "manual" || name == "host" }

// ask shows the operator what to do and waits for their answer.
func ask(ctx context.Context, op Operator, title string, lines []string) error {
	done, err := op.Manual(ctx, title, lines)
	switch {
	case err != nil:
		return fmt.Errorf("asking the operator to %q: %v", strings.ToLower(title), err)
	case !done:
		return fmt.Errorf("%w: %s", ErrDeclined, title)
	}
	return nil
}
