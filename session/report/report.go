package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/perfbisect/perfbisect/internal/jsonl"
	"github.com/perfbisect/perfbisect/internal/series"
	"github.com/perfbisect/perfbisect/internal/shell"
	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/knob"
	"github.com/perfbisect/perfbisect/session"
	"github.com/perfbisect/perfbisect/session/verdict"
)

// Format names an output of the report.
type Format string

const (
	FormatMarkdown Format = "md"
	FormatHTML     Format = "html"
	FormatJSON     Format = "json"
)

// Formats are the formats Write knows, in the order they are offered.
var Formats = []Format{FormatMarkdown, FormatHTML, FormatJSON}

// Schema is the value of the JSON report's "schema" field.
const Schema = "perfbisect.report/v1"

// Report is the digest of one session log. Its exported fields are the JSON
// report (see the package documentation); Markdown and HTML render the same.
type Report struct {
	Schema     string      `json:"schema"`
	Session    SessionInfo `json:"session"`
	Host       *HostInfo   `json:"host"`
	Reference  Reference   `json:"reference"`
	Steps      []*Step     `json:"steps"`
	Notes      []NoteInfo  `json:"notes"`
	Errors     []ErrorInfo `json:"errors"`
	Conclusion string      `json:"conclusion"`
	Ended      string      `json:"ended"`
	CutShort   string      `json:"cut_short"`
	BadLines   []BadLine   `json:"bad_lines"`
	Commands   []string    `json:"commands"`
	refSamples []probe.Sample
	metric     string
}

// SessionInfo is the session event: what ran, where, when.
type SessionInfo struct {
	Version  string     `json:"version"`
	Playbook string     `json:"playbook"`
	Source   string     `json:"source"`
	Workload probe.Spec `json:"workload"`
	Host     string     `json:"host"`
	DryRun   bool       `json:"dry_run"`
	Metric   string     `json:"metric"`
	Started  *time.Time `json:"started"`
	Finished *time.Time `json:"finished"`
}

// HostInfo is the host event's facts.
type HostInfo = session.HostFacts

// Reference is the known-good run the steps were judged against.
type Reference struct {
	File    string   `json:"file"`
	Seconds int      `json:"seconds"`
	Median  *float64 `json:"median"`
	// Mismatch is how its workload differs from the walk's, accepted by
	// the operator (--reference-mismatch-ok).
	Mismatch []string `json:"mismatch,omitempty"`
}

// Step is one step of the walk.
type Step struct {
	ID         string         `json:"id"`
	Title      string         `json:"title"`
	Hypothesis string         `json:"hypothesis"`
	Reproduce  bool           `json:"reproduce"`
	Knobs      []Knob         `json:"knobs"`
	State      string         `json:"state"`
	Reason     string         `json:"reason"`
	Verdicts   []Verdict      `json:"verdicts"`
	Decision   *Decision      `json:"decision"`
	Seconds    int            `json:"seconds"`
	DurationS  float64        `json:"duration_s"`
	Median     *float64       `json:"median"`
	Summary    *probe.Summary `json:"summary"`
	// ExtendedS is how many seconds the operator added to the step.
	ExtendedS float64 `json:"extended_s"`
	// JudgedOn is, for a reproduce step that regressed, the metric it
	// regressed on most clearly, which the later steps were judged on.
	JudgedOn string `json:"judged_on,omitempty"`
	samples  []probe.Sample
	started  time.Time
}

// Knob is a knob a step used, with what happened to it.
type Knob struct {
	Knob     string            `json:"knob"`
	Settings map[string]string `json:"settings"`
	Text     string            `json:"text"`
	Actions  []KnobAction      `json:"actions"`
}

// KnobAction is one knob event: planned, applied, reverted, revert_failed,
// unavailable.
type KnobAction struct {
	Action string    `json:"action"`
	Time   time.Time `json:"time"`
	Do     []string  `json:"do"`
	Undo   []string  `json:"undo"`
	Before string    `json:"before"`
	After  string    `json:"after"`
	Error  string    `json:"error"`
}

// Verdict is a step judged against a baseline.
type Verdict struct {
	Against    string  `json:"against"`
	Metric     string  `json:"metric"`
	BaseMedian float64 `json:"base_median"`
	StepMedian float64 `json:"step_median"`
	Ratio      float64 `json:"ratio"`
	CILow      float64 `json:"ci_low"`
	CIHigh     float64 `json:"ci_high"`
	Confidence float64 `json:"confidence"`
	P          float64 `json:"p"`
	NBase      int     `json:"n_base"`
	NStep      int     `json:"n_step"`
	Outcome    string  `json:"outcome"`
	Why        string  `json:"why"`
}

// Decision is what the step's verdicts meant and where the walk went.
type Decision struct {
	State      string `json:"state"`
	Meaning    string `json:"meaning"`
	Next       string `json:"next"`
	Conclusion string `json:"conclusion"`
}

// NoteInfo is a note of the operator.
type NoteInfo struct {
	Time time.Time `json:"time"`
	Step string    `json:"step"`
	Text string    `json:"text"`
}

// ErrorInfo is an error event, or a knob's failed revert.
type ErrorInfo struct {
	Time         time.Time `json:"time"`
	Step         string    `json:"step"`
	Message      string    `json:"message"`
	Action       string    `json:"action"`
	RevertFailed bool      `json:"revert_failed"`
	// NotPutBack: the log says the knob was applied and never put back (nor
	// that putting it back failed): perfbisect died with it applied.
	NotPutBack bool `json:"not_put_back,omitempty"`
}

// BadLine is a line of the log that could not be read.
type BadLine struct {
	Line  int    `json:"line"`
	Torn  bool   `json:"torn"`
	Error string `json:"error"`
}

// Build digests a session's events (and the reader's bad lines, for a log
// cut short) into a Report.
func Build(events []session.Event, bad []*jsonl.SyntaxError) *Report {
	return fromWalk(session.Fold(events), bad)
}

// fromWalk digests a walk into a Report: its steps in the order they ran.
func fromWalk(w *session.Walk, bad []*jsonl.SyntaxError) *Report {
	r := &Report{Schema: Schema, Steps: []*Step{}, Notes: []NoteInfo{}, Errors: []ErrorInfo{}, BadLines: []BadLine{}}
	if !w.Began.IsZero() {
		r.Session.Started, r.Session.Finished = &w.Began, &w.Last
	}
	if d := w.Start; d != nil {
		r.Session.Version, r.Session.Playbook, r.Session.Source = d.Version, d.Playbook, d.Source
		r.Session.Workload, r.Session.Host, r.Session.DryRun = d.Workload, d.Host, d.DryRun
		r.Reference.File = d.Reference
		r.Reference.Seconds = len(d.ReferenceSamples)
		r.Reference.Mismatch = d.ReferenceMismatch
	}
	r.refSamples = w.Reference()
	if w.Host != nil {
		h := *w.Host
		r.Host = &h
	}
	r.metric = w.Metric()
	r.Session.Metric = r.metric
	warmup := w.Warmup()
	// Medians as the verdicts take them: after the warm-up.
	r.Reference.Median = median(verdict.Trim(r.refSamples, warmup), r.metric)
	for _, ws := range w.Steps {
		if ws.State == session.StatePending {
			continue // it never started
		}
		r.Steps = append(r.Steps, step(ws, warmup, r.metric))
		for _, c := range ws.Changes {
			if c.Action == session.KnobRevertFailed {
				r.Errors = append(r.Errors, ErrorInfo{Time: c.Time, Step: ws.ID, RevertFailed: true,
					Message: fmt.Sprintf("REVERT FAILED: %s: %s", knobText(c.Change.Knob, c.Change.Settings), c.Error),
					Action:  "put it back by hand: " + strings.Join(c.Change.Undo, "; ")})
			}
		}
	}
	for _, u := range w.NotPutBack() {
		action := session.RecoverHint
		if len(u.Change.Undo) > 0 {
			action += " (by hand: " + strings.Join(u.Change.Undo, "; ") + ")"
		}
		r.Errors = append(r.Errors, ErrorInfo{Time: u.Time, Step: u.Step, NotPutBack: true,
			Message: "NOT PUT BACK: " + u.What(), Action: action})
	}
	// The operator may run steps out of the playbook's order.
	sort.SliceStable(r.Steps, func(i, j int) bool { return r.Steps[i].started.Before(r.Steps[j].started) })
	for _, n := range w.Notes {
		r.Notes = append(r.Notes, NoteInfo{Time: n.Time, Step: n.Step, Text: n.Text})
	}
	for _, e := range w.Errors {
		r.Errors = append(r.Errors, ErrorInfo{Time: e.Time, Step: e.Step, Message: e.Message, Action: e.Action})
	}
	// In the order they happened; a failed revert before the error event
	// that follows it.
	sort.SliceStable(r.Errors, func(i, j int) bool { return r.Errors[i].Time.Before(r.Errors[j].Time) })
	r.Conclusion = w.Conclusion()
	if w.End != nil {
		r.Ended = string(w.End.Ended)
		if w.End.Error != "" {
			r.Errors = append(r.Errors, ErrorInfo{Time: w.Last, Message: "session " + r.Ended + ": " + w.End.Error})
		}
	}
	for _, b := range bad {
		r.BadLines = append(r.BadLines, BadLine{Line: b.Line, Torn: b.Torn, Error: b.Error()})
		if b.Torn {
			r.CutShort = fmt.Sprintf("the log ends at line %d, cut short; the report covers what it holds", b.Line)
		}
	}
	r.Commands = r.commands()
	return r
}

// step is a step of the walk as the report shows it.
func step(ws *session.StepState, warmup time.Duration, metric string) *Step {
	s := &Step{ID: ws.ID, Title: ws.Title, Hypothesis: ws.Hypothesis, Reproduce: ws.Reproduce, Knobs: []Knob{},
		State: string(ws.State), Reason: ws.Reason, Verdicts: []Verdict{}, Seconds: len(ws.Samples),
		DurationS: ws.DurationS, ExtendedS: ws.ExtendedS, JudgedOn: ws.JudgedOn, Summary: ws.Summary, samples: ws.Samples, started: ws.Started}
	for _, u := range ws.Knobs {
		s.Knobs = append(s.Knobs, Knob{Knob: u.Knob, Settings: u.With, Text: knobText(u.Knob, u.With), Actions: []KnobAction{}})
	}
	for _, c := range ws.Changes {
		k := findKnob(s, c.Change.Knob, c.Change.Settings)
		k.Actions = append(k.Actions, KnobAction{Action: string(c.Action), Time: c.Time, Do: nonNil(c.Change.Do),
			Undo: nonNil(c.Change.Undo), Before: c.Change.Before, After: c.Change.After, Error: c.Error})
	}
	for _, d := range ws.Verdicts {
		v := d.Verdict
		s.Verdicts = append(s.Verdicts, Verdict{Against: string(d.Against), Metric: v.Metric,
			BaseMedian: finite(v.BaseMedian), StepMedian: finite(v.StepMedian), Ratio: finite(v.Ratio),
			CILow: finite(v.CILow), CIHigh: finite(v.CIHigh), Confidence: finite(v.Confidence), P: finite(v.P),
			NBase: v.NBase, NStep: v.NStep, Outcome: string(v.Outcome), Why: v.Why})
	}
	if d := ws.Decision; d != nil {
		s.Decision = &Decision{State: s.State, Meaning: d.Meaning, Next: d.Next, Conclusion: d.Conclusion}
	}
	s.Median = median(verdict.Trim(ws.Samples, warmup), metric)
	if s.Median == nil && len(s.Verdicts) > 0 {
		m := s.Verdicts[0].StepMedian
		s.Median = &m
	}
	return s
}

func findKnob(s *Step, name string, set map[string]string) *Knob {
	for i := range s.Knobs {
		if s.Knobs[i].Knob == name {
			return &s.Knobs[i]
		}
	}
	s.Knobs = append(s.Knobs, Knob{Knob: name, Settings: set, Text: knobText(name, set), Actions: []KnobAction{}})
	return &s.Knobs[len(s.Knobs)-1]
}

func knobText(name string, set map[string]string) string {
	return knob.Use{Knob: name, With: set}.String()
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

func median(samples []probe.Sample, metric string) *float64 {
	vals, err := verdict.Values(samples, metric)
	if err != nil || len(vals) == 0 {
		return nil
	}
	m := series.Median(vals)
	return &m
}

// hasReference says whether the steps were judged against a known-good run.
func (r *Report) hasReference() bool { return r.Reference.File != "" || r.Reference.Seconds > 0 }

// reproduce is the reproduce step (the regression), if the log has one.
func (r *Report) reproduce() *Step {
	for _, s := range r.Steps {
		if s.Reproduce {
			return s
		}
	}
	return nil
}

func (r *Report) commands() []string {
	name := r.Session.Source
	if n, ok := strings.CutPrefix(name, "embedded:"); ok {
		name = n
	}
	if name == "" {
		name = r.Session.Playbook
	}
	if name == "" {
		return []string{}
	}
	c := "perfbisect run --no-tui --playbook " + shell.Quote(name)
	if r.Session.Workload.Dir != "" {
		c += " --dir " + shell.Quote(r.Session.Workload.Dir)
	}
	if r.Reference.File != "" {
		c += " --reference " + shell.Quote(r.Reference.File)
	}
	return []string{c}
}

// conclusionText is the conclusion paragraph, or what stands for it.
func (r *Report) conclusionText() string {
	switch {
	case r.Conclusion != "":
		return r.Conclusion
	case r.Ended != "":
		return fmt.Sprintf("No conclusion: the session ended %s before the playbook reached one.", r.Ended)
	}
	return "No conclusion: the log has no end; the walk did not finish."
}

// baseline is the verdict the results table shows for a step, and the
// name of its baseline.
func (r *Report) baseline() (string, string) {
	if r.hasReference() {
		return "reference", string(session.AgainstReference)
	}
	return "baseline", string(session.AgainstRegression)
}

// MetricText shows a value of a metric with its unit: "0.712 ms", "1499.1".
func MetricText(metric string, v float64) string {
	if strings.HasSuffix(metric, "_ms") {
		return probe.MsText(v) + " ms"
	}
	return fmt.Sprintf("%.1f", v)
}

// verdictText is one verdict in words, with every number.
func verdictText(v Verdict) string {
	ci := "no interval"
	if v.Confidence > 0 {
		ci = fmt.Sprintf("%.0f%% CI %.3gx–%.3gx", v.Confidence*100, v.CILow, v.CIHigh)
	}
	return fmt.Sprintf("vs %s: %s median %s → %s, %.3gx (%s), p=%.3g, n=%d+%d: %s",
		v.Against, v.Metric, MetricText(v.Metric, v.BaseMedian), MetricText(v.Metric, v.StepMedian),
		v.Ratio, ci, v.P, v.NBase, v.NStep, v.Outcome)
}

// JSON writes the report as one indented JSON object (see the package
// documentation for the schema).
func (r *Report) JSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// Write writes the report in format f.
func (r *Report) Write(w io.Writer, f Format) error {
	switch f {
	case FormatMarkdown:
		return r.Markdown(w)
	case FormatHTML:
		return r.HTML(w)
	case FormatJSON:
		return r.JSON(w)
	}
	return fmt.Errorf("unknown report format %q (want md, html or json)", f)
}

// incident is one line of "Errors and reverts": an error, a revert (failed
// or not), or a line of the log that could not be read.
type incident struct {
	Time   time.Time // zero for a bad line of the log
	Step   string
	Kind   string // "error", "revert_failed", "not_put_back", "reverted", "bad_line"
	Text   string // the message; for a revert, what put it back
	Knob   string // for a revert: the knob and its settings
	Action string // for an error: what was done about it
}

// incidents lists errors and reverts in the order they happened, then the
// log's unreadable lines, so that the renderers only format them.
func (r *Report) incidents() []incident {
	var out []incident
	for _, x := range r.Errors {
		kind := "error"
		switch {
		case x.RevertFailed:
			kind = "revert_failed"
		case x.NotPutBack:
			kind = "not_put_back"
		}
		text := strings.TrimPrefix(strings.TrimPrefix(x.Message, "REVERT FAILED: "), "NOT PUT BACK: ")
		out = append(out, incident{Time: x.Time, Step: x.Step, Kind: kind, Text: text, Action: x.Action})
	}
	for _, s := range r.Steps {
		for _, k := range s.Knobs {
			for _, a := range k.Actions {
				if a.Action == "reverted" {
					out = append(out, incident{Time: a.Time, Step: s.ID, Kind: "reverted", Knob: k.Text, Text: strings.Join(a.Undo, "; ")})
				}
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time.Before(out[j].Time) })
	for _, b := range r.BadLines {
		out = append(out, incident{Kind: "bad_line", Text: b.Error})
	}
	return out
}

// latency is the latency field to chart for samples: want ("p99_ms") when
// they measured it, else the nearest one they did (pgbench: avg_ms), with
// its name and a getter.
//
// A second without operations (a stall) has no latency (probe.Sample.Value):
// NaN, a gap in a chart, as verdict.Values leaves it out.
func latency(want string, samples []probe.Sample) (string, probe.Field, func(probe.Sample) float64) {
	name, _ := verdict.Pick(want, verdict.Measured(samples))
	f, _ := probe.FieldByName(name)
	return name, f, func(s probe.Sample) float64 {
		v, ok := s.Value(f)
		if !ok || math.IsInf(v, 0) {
			return math.NaN()
		}
		return v
	}
}

// summaryText says a run's summary with the fields it measured:
// "512.0 ops/s, p95 3.1 ms, max 12 ms".
func summaryText(m *probe.Summary) string {
	s := m.AsSample()
	t := fmt.Sprintf("%.1f ops/s", m.OpsPerS)
	for _, f := range probe.Latencies(s.Measured()) {
		v, _ := s.Get(f)
		t += fmt.Sprintf(", %s %s ms", f.Label(), probe.MsText(v))
	}
	return t
}
