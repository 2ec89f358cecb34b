package report

import (
	"fmt"
	"strings"
	"time"
)

// The report's content is laid out once, by outline, as a few kinds of
// blocks made of spans; Markdown and HTML each render those in their own
// markup, and never decide what to say.

// spanKind is how a run of text is set.
type spanKind int

const (
	plain  spanKind = iota
	code            // a command, a knob, a step's ID
	strong          // a label: "Hypothesis:"
	alarm           // what must not be missed: REVERT FAILED
)

type span struct {
	kind spanKind
	text string
}

// line is a run of spans: a paragraph's text or a list item's.
type line []span

func text(s string) span { return span{plain, s} }

// item is a list item, with lines under it.
type item struct {
	line line
	sub  []line
}

// block is one of heading, para, list, table, pre and stepBlock.
type block interface{ isBlock() }

func (heading) isBlock()   {}
func (para) isBlock()      {}
func (list) isBlock()      {}
func (table) isBlock()     {}
func (pre) isBlock()       {}
func (stepBlock) isBlock() {}

// The blocks.
type (
	heading struct {
		level int
		line  line
	}
	// para is a paragraph; class is "", "conclusion" or "cut".
	para struct {
		class string
		line  line
	}
	list  struct{ items []item }
	table struct {
		header []string
		rows   [][]string
		num    []bool // right-aligned columns
	}
	// pre is preformatted text, in a language ("sh") for Markdown's fence.
	pre struct{ lang, text string }
	// stepBlock is a step of the timeline: its heading, its items, and its
	// charts, which each format draws its own way.
	stepBlock struct {
		title line
		items []item
		step  *Step
	}
)

// title is the report's title.
func (r *Report) title() string {
	t := "perfbisect report"
	if r.Session.Playbook != "" {
		t += ": " + r.Session.Playbook
	}
	if r.Session.Host != "" {
		t += " on " + r.Session.Host
	}
	return t
}

// outline is the report: the conclusion first, then the host, the
// reference, the timeline of steps, the results table, the notes, errors
// and reverts, and the commands to redo the walk.
func (r *Report) outline() []block {
	b := []block{
		heading{1, line{text(r.title())}},
		para{"conclusion", line{{strong, "Conclusion."}, text(" " + r.conclusionText())}},
	}
	if r.CutShort != "" {
		b = append(b, para{"cut", line{{strong, "Cut short:"}, text(" " + r.CutShort + ".")}})
	}
	b = append(b, para{"", line{text(r.sessionLine())}})

	b = append(b, heading{2, line{text("Host")}})
	host := list{}
	for _, l := range r.hostLines() {
		host.items = append(host.items, item{line: line{text(l)}})
	}
	b = append(b, host,
		heading{2, line{text("Reference")}}, para{"", line{text(r.referenceLine())}},
		heading{2, line{text("Timeline")}})
	if len(r.Steps) == 0 {
		b = append(b, para{"", line{text("No step started.")}})
	}
	for i, s := range r.Steps {
		b = append(b, r.stepOutline(i, s))
	}

	header, rows := r.Table()
	t := table{header: header[:], num: []bool{false, true, true, true, false}}
	for _, row := range rows {
		t.rows = append(t.rows, row[:])
	}
	b = append(b, heading{2, line{text("Results")}}, t)

	b = append(b, heading{2, line{text("Notes")}})
	notes := list{}
	for _, n := range r.Notes {
		notes.items = append(notes.items, item{line: line{text(clock(n.Time) + prefixed(" in ", n.Step) + ": " + n.Text)}})
	}
	b = append(b, orNone(notes))

	b = append(b, heading{2, line{text("Errors and reverts")}})
	inc := list{}
	for _, x := range r.incidents() {
		inc.items = append(inc.items, item{line: incidentLine(x)})
	}
	b = append(b, orNone(inc))

	b = append(b, heading{2, line{text("Redo the walk")}})
	if len(r.Commands) == 0 {
		b = append(b, para{"", line{text("The log has no session event to take the playbook from.")}})
	} else {
		b = append(b, pre{"sh", strings.Join(r.Commands, "\n")})
	}
	return b
}

func orNone(l list) block {
	if len(l.items) == 0 {
		return para{"", line{text("None.")}}
	}
	return l
}

func clock(t time.Time) string { return t.UTC().Format(time.TimeOnly) }

func (r *Report) stepOutline(i int, s *Step) stepBlock {
	label := func(l string, rest ...span) item { return item{line: append(line{{strong, l}}, rest...)} }
	st := stepBlock{title: line{text(fmt.Sprintf("%d. ", i+1)), {code, s.ID}, text(": " + s.Title)}, step: s}
	if s.Hypothesis != "" {
		st.items = append(st.items, label("Hypothesis:", text(" "+s.Hypothesis)))
	}
	for _, k := range s.Knobs {
		it := label("Knob:", text(" "), span{code, k.Text})
		for _, a := range k.Actions {
			it.sub = append(it.sub, knobActionLine(a))
		}
		st.items = append(st.items, it)
	}
	st.items = append(st.items, label("Measured:", text(" "+measuredText(s))))
	for _, v := range s.Verdicts {
		it := label("Verdict", text(" "+verdictText(v)))
		it.sub = []line{{text(v.Why)}}
		st.items = append(st.items, it)
	}
	st.items = append(st.items, label("State:", text(" "+s.State+prefixed(": ", s.Reason))))
	if d := s.Decision; d != nil {
		if d.Meaning != "" && d.Meaning != s.Reason { // the reason already said it
			st.items = append(st.items, label("Meant:", text(" "+d.Meaning)))
		}
		switch {
		case d.Conclusion != "":
			st.items = append(st.items, label("Next:", text(" the walk concludes.")))
		case d.Next != "":
			st.items = append(st.items, label("Next:", text(" "), span{code, d.Next}))
		}
	}
	return st
}

func knobActionLine(a KnobAction) line {
	at := clock(a.Time)
	switch a.Action {
	case "planned":
		return line{text(fmt.Sprintf("%s planned: %s (put back: %s)", at, strings.Join(a.Do, "; "), strings.Join(a.Undo, "; ")))}
	case "applied":
		return line{text(at + " applied" + prefixed(": before ", a.Before) + prefixed(", now ", a.After))}
	case "reverted":
		return line{text(at + " reverted: " + strings.Join(a.Undo, "; "))}
	case "revert_failed":
		return line{text(at + " "), {alarm, "REVERT FAILED"},
			text(fmt.Sprintf(": %s (put back by hand: %s)", a.Error, strings.Join(a.Undo, "; ")))}
	}
	return line{text(at + " " + a.Action + prefixed(": ", a.Error))}
}

func incidentLine(x incident) line {
	at := clock(x.Time)
	switch x.Kind {
	case "revert_failed", "not_put_back":
		loud := map[string]string{"revert_failed": "REVERT FAILED", "not_put_back": "NOT PUT BACK"}[x.Kind]
		return line{text(at + prefixed(" in ", x.Step) + ": "), {alarm, loud}, text(" " + x.Text + prefixed(" → ", x.Action))}
	case "reverted":
		return line{text(at + " in " + x.Step + ": put back "), {code, x.Knob}, text(": " + x.Text)}
	case "bad_line":
		return line{text("log " + x.Text)}
	}
	return line{text(at + prefixed(" in ", x.Step) + ": " + x.Text + prefixed(" → ", x.Action))}
}
