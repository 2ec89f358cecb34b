package playbook

import (
	"bytes"
	"encoding"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/knob"
)

// Parse reads a playbook, fills in its defaults and checks it whole: every
// error is an *Error at the line and column of the node at fault. source
// names the file in errors and in Playbook.Source. checkKnob checks each
// knob's name and settings; nil means knob.New, the real knobs.
func Parse(source string, data []byte, checkKnob func(name string, s knob.Settings) error) (*Playbook, error) {
	if checkKnob == nil {
		checkKnob = func(name string, s knob.Settings) error {
			_, err := knob.New(name, s)
			return err
		}
	}
	d := &decoder{file: source}
	p, perr := d.playbook(data, checkKnob)
	if perr != nil {
		return nil, perr
	}
	p.Source = source
	p.YAML = bytes.Clone(data)
	return p, nil
}

var (
	topFields     = []string{"name", "description", "workload", "duration", "threshold", "metric", "warmup", "steps"}
	stepFields    = []string{"id", "title", "hypothesis", "reproduce", "duration", "knobs", "persists", "gone", "unavailable", "meaning"}
	knobFields    = []string{"knob", "with"}
	targetFields  = []string{"next", "conclude"}
	meaningFields = []string{Persists, Gone, Unavailable}
	outcomes      = []string{Persists, Gone, Unavailable}
)

// nodes keeps where each part of a step was written, for the checks that
// need the whole playbook (targets, cycles, reachability).
type nodes struct {
	step      ast.Node
	id        ast.Node
	reproduce ast.Node
	// target holds, per outcome, the node to blame for its Next.
	target map[string]ast.Node
}

func (d *decoder) playbook(data []byte, checkKnob func(string, knob.Settings) error) (*Playbook, *Error) {
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		return nil, d.syntaxError(err)
	}
	var body ast.Node
	for _, doc := range f.Docs {
		if doc == nil || doc.Body == nil {
			continue
		}
		if body != nil {
			return nil, d.at(doc, "a playbook is one YAML document, and another one starts here")
		}
		body = doc.Body
	}
	if body == nil {
		return nil, d.at(nil, "empty playbook: want at least name and steps (see `perfbisect playbooks show local-disk`)")
	}
	d.collectAnchors(body)

	p := &Playbook{
		Workload:  probe.DefaultSpec(),
		Duration:  DefaultDuration,
		Threshold: DefaultThreshold,
		Metric:    DefaultMetric,
		Warmup:    DefaultWarmup,
	}
	fs, perr := d.fields(body, "playbook", topFields)
	if perr != nil {
		return nil, perr
	}
	var workload, steps *field
	var at []nodes
	for i := range fs {
		f := fs[i]
		switch f.key {
		case "name":
			p.Name, _, perr = d.line(f, "name")
		case "description":
			p.Description, _, perr = d.text(f, "description")
		case "workload":
			workload = &fs[i]
			perr = d.workload(f, &p.Workload)
		case "duration":
			p.Duration, perr = d.duration(f, "duration", time.Second)
		case "threshold":
			p.Threshold, perr = d.threshold(f)
		case "metric":
			p.Metric, perr = d.metric(f)
		case "warmup":
			p.Warmup, perr = d.duration(f, "warmup", 0)
		case "steps":
			steps = &fs[i]
			p.Steps, at, perr = d.steps(f, checkKnob)
		}
		if perr != nil {
			return nil, perr
		}
	}
	if p.Name == "" {
		return nil, d.at(body, "missing name: name the playbook, like name: orders-db-write-latency")
	}
	if steps == nil {
		return nil, d.at(body, "missing steps: list the steps, the first one reproducing the regression (reproduce: true)")
	}
	p.Workload.Duration = p.Duration
	if err := p.Workload.Validate(); err != nil {
		return nil, d.specError(workload, err)
	}
	for i := range p.Steps {
		if p.Steps[i].Duration == 0 {
			p.Steps[i].Duration = p.Duration
		}
		if p.Steps[i].Unavailable == (Target{}) {
			p.Steps[i].Unavailable = p.Steps[i].Persists
			at[i].target[Unavailable] = at[i].target[Persists]
		}
	}
	if err := d.check(p, *steps, at); err != nil {
		return nil, err
	}
	return p, nil
}

// specFields maps the yaml names of probe.Spec's fields to their index,
// and workloadFields lists the ones a playbook sets in workload: (not the
// duration, which is the playbook's and each step's). Both follow
// probe.Spec as it grows.
var specFields, workloadFields = func() (map[string]int, []string) {
	m := map[string]int{}
	var names []string
	t := reflect.TypeFor[probe.Spec]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if name == "" || name == "-" {
			continue
		}
		m[name] = i
		if name != "duration" {
			names = append(names, name)
		}
	}
	return m, names
}()

// workload sets the fields of spec the playbook gives; the others keep
// probe.DefaultSpec's values.
func (d *decoder) workload(f field, spec *probe.Spec) *Error {
	fs, err := d.fields(f.value, "workload", nil)
	if err != nil {
		return err
	}
	sv := reflect.ValueOf(spec).Elem()
	for _, wf := range fs {
		what := "workload." + wf.key
		if wf.key == "duration" {
			return d.at(wf.keyNode, "%s: a step runs for the playbook's duration (or its own duration:), set it there", what)
		}
		if _, ok := specFields[wf.key]; !ok {
			return d.at(wf.keyNode, "workload: unknown field %q (fields: %s)", wf.key, strings.Join(workloadFields, ", "))
		}
		if wf.value == nil {
			return d.at(wf.keyNode, "%s: want a value", what)
		}
		v := sv.Field(specFields[wf.key])
		s, ok := scalar(wf.value)
		if !ok {
			return d.at(wf.value, "%s: want a single value, found %s", what, describe(wf.value))
		}
		if u, ok := v.Addr().Interface().(encoding.TextUnmarshaler); ok {
			if err := u.UnmarshalText([]byte(s)); err != nil {
				return d.at(wf.value, "%s: %v", what, err)
			}
			continue
		}
		switch v.Kind() {
		case reflect.String:
			v.SetString(s)
		case reflect.Int, reflect.Int64:
			n, err := strconv.ParseInt(s, 10, 64)
			if _, isInt := wf.value.(*ast.IntegerNode); !isInt || err != nil || v.OverflowInt(n) {
				return d.at(wf.value, "%s: want a whole number, found %s", what, describe(wf.value))
			}
			v.SetInt(n)
		case reflect.Bool:
			b, isBool := wf.value.(*ast.BoolNode)
			if !isBool {
				return d.at(wf.value, "%s: want true or false, found %s", what, describe(wf.value))
			}
			v.SetBool(b.Value)
		default:
			return d.at(wf.value, "%s: cannot be set from a playbook", what)
		}
	}
	return nil
}

// flagName finds the field a probe.Spec.Validate message is about: it
// names its flag or field first ("--threads 0: want 1 to 1024 writers").
var flagName = regexp.MustCompile(`^(?:--)?([a-z_-]+)`)

// specError places a workload that does not validate at the field its
// message names when the playbook sets it, else at the workload key (or
// the top of the file, when all of it comes from the defaults).
func (d *decoder) specError(workload *field, err error) *Error {
	if workload == nil {
		return d.at(nil, "workload: %v", err)
	}
	var blame ast.Node = workload.keyNode
	if m := flagName.FindStringSubmatch(err.Error()); m != nil {
		name := strings.ReplaceAll(m[1], "-", "_")
		if fs, ferr := d.fields(workload.value, "workload", nil); ferr == nil {
			for _, wf := range fs {
				if wf.key == name {
					blame = wf.node()
				}
			}
		}
	}
	return d.at(blame, "workload: %v", err)
}

// duration reads a duration of at least min.
func (d *decoder) duration(f field, what string, min time.Duration) (probe.Duration, *Error) {
	s, ok, err := d.text(f, what)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, d.at(f.node(), "%s: want a duration, like 30s or 2m", what)
	}
	var v probe.Duration
	if err := v.UnmarshalText([]byte(s)); err != nil {
		return 0, d.at(f.value, "%s: %v", what, err)
	}
	if time.Duration(v) < min {
		if min >= time.Second {
			return 0, d.at(f.value, "%s %s: want at least %v (samples are one second each)", what, s, min)
		}
		return 0, d.at(f.value, "%s %s: want %v or more", what, s, min)
	}
	return v, nil
}

// threshold reads a relative change as "10%" or 0.1.
func (d *decoder) threshold(f field) (float64, *Error) {
	s, ok, err := d.text(f, "threshold")
	if err != nil {
		return 0, err
	}
	const want = "want a relative change between 0 and 1, like 10% or 0.1"
	if !ok {
		return 0, d.at(f.node(), "threshold: %s", want)
	}
	num, pct := strings.CutSuffix(s, "%")
	v, perr := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if pct {
		v /= 100
	}
	if perr != nil || math.IsNaN(v) || v <= 0 || v >= 1 {
		return 0, d.at(f.value, "threshold %s: %s", s, want)
	}
	return v, nil
}

func (d *decoder) metric(f field) (string, *Error) {
	s, _, err := d.text(f, "metric")
	if err == nil && !slices.Contains(Metrics, s) {
		err = d.at(f.node(), "metric %q: want one of %s", s, strings.Join(Metrics, ", "))
	}
	return s, err
}

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
	a := nodes{step: n, target: map[string]ast.Node{}}
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
		id, ok, err := d.line(f, what+": id")
		if err != nil {
			return s, a, err
		}
		if !ok {
			return s, a, d.at(f.node(), "%s: id: want a name for the step, like tmpfs or fsync-off", what)
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
		case Persists, Gone, Unavailable:
			var t Target
			var blame ast.Node
			t, blame, err = d.target(f, what+": "+f.key)
			switch f.key {
			case Persists:
				s.Persists = t
			case Gone:
				s.Gone = t
			case Unavailable:
				s.Unavailable = t
			}
			a.target[f.key] = blame
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
		{Persists, "where to go when the regression persists: a step id, or {conclude: \"...\"}"},
		{Gone, "where to go when the regression is gone: a step id, or {conclude: \"...\"}"},
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
func (d *decoder) knobs(f field, what string, checkKnob func(string, knob.Settings) error) ([]KnobUse, *Error) {
	if f.value == nil {
		return nil, nil
	}
	seq, ok := f.value.(*ast.SequenceNode)
	if !ok {
		return nil, d.at(f.value, "%s: knobs: want a list (lines starting with \"- knob: ...\"), found %s", what, describe(f.value))
	}
	var uses []KnobUse
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
		var use KnobUse
		var nameNode ast.Node
		with := map[string]ast.Node{}
		var withKeys []string
		for _, kf := range fs {
			switch kf.key {
			case "knob":
				name, ok, err := d.line(kf, what+": knob")
				if err != nil {
					return nil, err
				}
				if !ok {
					return nil, d.at(kf.node(), "%s: knob: want a knob name (knobs: %s)", what, knob.Names())
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
			s, ok, err := d.line(tf, what+": next")
			if err != nil {
				return Target{}, nil, err
			}
			if !ok {
				return Target{}, nil, d.at(tf.node(), "%s: next: want a step id", what)
			}
			t.Next, blame = s, tf.value
		case "conclude":
			s, ok, err := d.text(tf, what+": conclude")
			if err != nil {
				return Target{}, nil, err
			}
			if !ok {
				return Target{}, nil, d.at(tf.node(), "%s: conclude: want the sentence the walk ends with", what)
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

func (d *decoder) meaning(f field, what string) (map[string]string, *Error) {
	fs, err := d.fields(f.value, what+": meaning", meaningFields)
	if err != nil {
		return nil, err
	}
	var m map[string]string
	for _, mf := range fs {
		s, ok, err := d.text(mf, what+": meaning."+mf.key)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if m == nil {
			m = map[string]string{}
		}
		m[mf.key] = s
	}
	return m, nil
}
