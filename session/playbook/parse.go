package playbook

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/knob"
	"github.com/perfbisect/perfbisect/session/verdict"
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
	stepFields    = []string{"id", "title", "hypothesis", "reproduce", "duration", "knobs", string(Persists), string(Gone), string(Unavailable), "meaning"}
	knobFields    = []string{"knob", "with"}
	targetFields  = []string{"next", "conclude"}
	meaningFields = []string{string(Persists), string(Gone), string(Unavailable)}
)

// nodes keeps where each part of a step was written, for the checks that
// need the whole playbook (targets, cycles, reachability).
type nodes struct {
	step      ast.Node
	id        ast.Node
	reproduce ast.Node
	// target holds, per outcome, the node to blame for its Next.
	target map[Outcome]ast.Node
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
	if err == nil && !slices.Contains(verdict.Metrics(), s) {
		err = d.at(f.node(), "metric %q: want one of %s", s, strings.Join(verdict.Metrics(), ", "))
	}
	return s, err
}
