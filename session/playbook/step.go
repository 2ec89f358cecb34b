package playbook

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"

	"github.com/perfbisect/perfbisect/probe/knob"
)

// steps reads the list of steps, and where each part of each was written.
func (d *decoder) steps(f field, checkKnob func(string, knob.Settings) error) ([]Step, []nodes, *Error) {
	if f.value == nil {
		return nil, nil, nil // "no steps" is reported with the other checks
	}
	seq, ok := f.value.(*ast.SequenceNode)
	if !ok {
		return nil, nil, d.at(f.value, "steps: want a list of steps (lines starting with \"- id: ...\"), found %s", describe(f.value))
	}
	var steps []Step
	var at []nodes
	firstID := map[string]ast.Node{}
	for i, raw := range seq.Values {
		n, err := d.resolve(raw)
		if err != nil {
			return nil, nil, err
		}
		if n == nil {
			return nil, nil, d.at(raw, "step %d is empty: want id, title, hypothesis, persists and gone", i+1)
		}
		s, a, err := d.step(n, i, checkKnob)
		if err != nil {
			return nil, nil, err
		}
		if first, dup := firstID[s.ID]; dup {
			l, _ := position(first)
			return nil, nil, d.at(a.id, "duplicate step id %q (first on line %d)", s.ID, l)
		}
		firstID[s.ID] = a.id
		steps = append(steps, s)
		at = append(at, a)
	}
	return steps, at, nil
}

var validID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

func (d *decoder) step(n ast.Node, i int, checkKnob func(string, knob.Settings) error) (Step, nodes, *Error) {
	var s Step
	a := nodes{step: n, target: map[Outcome]ast.Node{}}
	what := fmt.Sprintf("step %d", i+1)
	if id := peekID(n); validID.MatchString(id) {
		what = fmt.Sprintf("step %q", id) // so that even an unknown field names its step
	}
	fs, err := d.fields(n, what, stepFields)
	if err != nil {
		return s, a, err
	}
	// The id first, so every other message can name the step.
	for _, f := range fs {
		if f.key != "id" {
			continue
		}
		id, err := d.required(d.line, f, what+": id", "a name for the step, like tmpfs or fsync-off")
		if err != nil {
			return s, a, err
		}
		if !validID.MatchString(id) {
			return s, a, d.at(f.value, "%s: id %q: use letters, digits, '.', '_' and '-' (like fsync-off)", what, id)
		}
		s.ID, a.id = id, f.value
		what = fmt.Sprintf("step %q", id)
	}
	if s.ID == "" {
		return s, a, d.at(n, "%s: missing id: name the step, like id: tmpfs", what)
	}
	given := map[string]bool{}
	for _, f := range fs {
		given[f.key] = true
		var ok bool
		switch f.key {
		case "title":
			s.Title, ok, err = d.line(f, what+": title")
			given[f.key] = ok
		case "hypothesis":
			s.Hypothesis, ok, err = d.text(f, what+": hypothesis")
			given[f.key] = ok
		case "reproduce":
			b, isBool := f.value.(*ast.BoolNode)
			if !isBool {
				err = d.at(f.node(), "%s: reproduce: want true or false, found %s", what, describe(f.value))
				break
			}
			s.Reproduce, a.reproduce = b.Value, f.value
		case "duration":
			s.Duration, err = d.duration(f, what+": duration", time.Second)
		case "knobs":
			s.Knobs, err = d.knobs(f, what, checkKnob)
		case string(Persists), string(Gone), string(Unavailable):
			var t Target
			var blame ast.Node
			t, blame, err = d.target(f, what+": "+f.key)
			switch Outcome(f.key) {
			case Persists:
				s.Persists = t
			case Gone:
				s.Gone = t
			case Unavailable:
				s.Unavailable = t
			}
			a.target[Outcome(f.key)] = blame
		case "meaning":
			s.Meaning, err = d.meaning(f, what)
		}
		if err != nil {
			return s, a, err
		}
	}
	for _, req := range []struct{ key, hint string }{
		{"title", "a few words for the step, like title: Data directory on tmpfs"},
		{"hypothesis", "the one sentence this step tests, like hypothesis: The disk is the bottleneck."},
		{string(Persists), "where to go when the regression persists: a step id, or {conclude: \"...\"}"},
		{string(Gone), "where to go when the regression is gone: a step id, or {conclude: \"...\"}"},
	} {
		if !given[req.key] {
			return s, a, d.at(a.id, "%s: missing %s: %s", what, req.key, req.hint)
		}
	}
	return s, a, nil
}

// peekID is the id a step mapping gives plainly, if any.
func peekID(n ast.Node) string {
	if m, ok := n.(*ast.MappingNode); ok {
		for _, mv := range m.Values {
			if k, ok := mv.Key.(*ast.StringNode); ok && k.Value == "id" {
				id, _ := scalar(mv.Value)
				return id
			}
		}
	}
	return ""
}

// knobs reads a step's knobs and has checkKnob check each.
func (d *decoder) knobs(f field, what string, checkKnob func(string, knob.Settings) error) ([]knob.Use, *Error) {
	if f.value == nil {
		return nil, nil
	}
	seq, ok := f.value.(*ast.SequenceNode)
	if !ok {
		return nil, d.at(f.value, "%s: knobs: want a list (lines starting with \"- knob: ...\"), found %s", what, describe(f.value))
	}
	var uses []knob.Use
	for _, raw := range seq.Values {
		n, err := d.resolve(raw)
		if err != nil {
			return nil, err
		}
		if n == nil {
			return nil, d.at(raw, "%s: knobs: empty entry: want knob: NAME and its settings under with:", what)
		}
		fs, err := d.fields(n, what+": knob", knobFields)
		if err != nil {
			return nil, err
		}
		var use knob.Use
		var nameNode ast.Node
		with := map[string]ast.Node{}
		var withKeys []string
		for _, kf := range fs {
			switch kf.key {
			case "knob":
				name, err := d.required(d.line, kf, what+": knob", "a knob name (knobs: "+knob.Names()+")")
				if err != nil {
					return nil, err
				}
				use.Knob, nameNode = name, kf.value
			case "with":
				// Any setting is allowed here: the knob checks them.
				sfs, err := d.fields(kf.value, what+": with", nil)
				if err != nil {
					return nil, err
				}
				for _, sf := range sfs {
					v, ok := scalar(sf.value)
					if !ok {
						return nil, d.at(sf.node(), "%s: with.%s: want a single value, found %s", what, sf.key, describe(sf.value))
					}
					if use.With == nil {
						use.With = knob.Settings{}
					}
					use.With[sf.key] = v
					with[sf.key] = sf.value
					withKeys = append(withKeys, sf.key)
				}
			}
		}
		if use.Knob == "" {
			return nil, d.at(n, "%s: missing knob: name the knob (knobs: %s)", what, knob.Names())
		}
		if err := checkKnob(use.Knob, use.With); err != nil {
			blame := nameNode
			if k := named(err.Error(), withKeys); k != "" {
				blame = with[k]
			}
			return nil, d.at(blame, "%s: %v", what, err)
		}
		uses = append(uses, use)
	}
	return uses, nil
}

// named is the setting a knob's error is about: the first one it quotes,
// else the first one it names, else "".
func named(msg string, keys []string) string {
	for _, k := range keys {
		if strings.Contains(msg, strconv.Quote(k)) {
			return k
		}
	}
	for _, k := range keys {
		if regexp.MustCompile(`\b` + regexp.QuoteMeta(k) + `\b`).MatchString(msg) {
			return k
		}
	}
	return ""
}

// target reads where an outcome leads: a step id, {next: ID} or
// {conclude: SENTENCE}. It returns the node to blame for the id.
func (d *decoder) target(f field, what string) (Target, ast.Node, *Error) {
	const want = `a step id, or {conclude: "what it means"}`
	if f.value == nil {
		return Target{}, nil, d.at(f.node(), "%s: say where to go: %s", what, want)
	}
	if s, ok := scalar(f.value); ok {
		s = strings.TrimSpace(s)
		if s == "" {
			return Target{}, nil, d.at(f.value, "%s: say where to go: %s", what, want)
		}
		return Target{Next: s}, f.value, nil
	}
	fs, err := d.fields(f.value, what, targetFields)
	if err != nil {
		return Target{}, nil, err
	}
	var t Target
	var blame ast.Node = f.value
	for _, tf := range fs {
		switch tf.key {
		case "next":
			s, err := d.required(d.line, tf, what+": next", "a step id")
			if err != nil {
				return Target{}, nil, err
			}
			t.Next, blame = s, tf.value
		case "conclude":
			s, err := d.required(d.text, tf, what+": conclude", "the sentence the walk ends with")
			if err != nil {
				return Target{}, nil, err
			}
			t.Conclude = s
		}
	}
	switch {
	case t.Next != "" && t.Conclude != "":
		return Target{}, nil, d.at(f.value, "%s: give next or conclude, not both", what)
	case t.Next == "" && t.Conclude == "":
		return Target{}, nil, d.at(f.value, "%s: give next or conclude: %s", what, want)
	}
	return t, blame, nil
}

func (d *decoder) meaning(f field, what string) (map[Outcome]string, *Error) {
	fs, err := d.fields(f.value, what+": meaning", meaningFields)
	if err != nil {
		return nil, err
	}
	var m map[Outcome]string
	for _, mf := range fs {
		s, ok, err := d.text(mf, what+": meaning."+mf.key)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if m == nil {
			m = map[Outcome]string{}
		}
		m[Outcome(mf.key)] = s
	}
	return m, nil
}
