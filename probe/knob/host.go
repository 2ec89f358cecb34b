package knob

import (
	"context"
	"strings"

	"github.com/perfbisect/perfbisect/probe"
)

// defaultHostInstructions is what the operator does when the playbook says
// only "leave the cluster".
const defaultHostInstructions = "Run the same probe on a bare host outside the cluster (perfbisect probe --json > bare.jsonl) and come back"

var hostSettings = map[string]string{
	"instructions": "what the operator does to run the workload on another host, one step a line (default: " + defaultHostInstructions + ")",
}

func init() {
	register(Kind{
		Name:     "host",
		Summary:  "ask the operator to run the workload on a bare host outside the cluster, and wait until they are back",
		Settings: hostSettings,
		New:      newHost,
	})
}

// newHost is a manual step whose instructions move the workload to a bare
// host. Probing another machine over ssh (--host) is the host layer's job,
// not a knob's; on EC2 a bare instance comes in a later issue.
func newHost(s Settings) (Knob, error) {
	text := s["instructions"]
	if strings.TrimSpace(text) == "" {
		text = defaultHostInstructions
	}
	return &hostKnob{&manual{
		name:          "host",
		title:         "Run the workload on a bare host",
		instructions:  lines(text),
		nothingToUndo: "nothing: this host was not changed",
		settings:      withDefaults(s, Settings{"instructions": text}),
	}}, nil
}

// hostKnob is the manual step, except in the lab: one machine has no bare
// host outside a cluster to move to.
type hostKnob struct{ *manual }

func (k *hostKnob) Plan(ctx context.Context, env Env, w probe.Spec) (Change, error) {
	if _, ok := onLab(env, w); ok {
		return Change{Knob: "host", Settings: k.settings}, &Unavailable{Knob: "host", Reason: "the lab is one machine: there is no bare host outside a cluster to move the workload to"}
	}
	return k.manual.Plan(ctx, env, w)
}

func (k *hostKnob) Apply(ctx context.Context, env Env, w probe.Spec) (probe.Spec, Change, Revert, error) {
	if c, err := k.Plan(ctx, env, w); err != nil {
		return w, c, nil, err
	}
	return k.manual.Apply(ctx, env, w)
}
