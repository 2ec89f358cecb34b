package session

import (
	"fmt"
	"strings"

	"github.com/perfbisect/perfbisect/session/verdict"
)

// The one place a walk's conclusion is put together. A playbook's words
// are the finding of the step that concluded; around them the runner says
// what the walk measured (each judged step with its multipliers), what it
// could not (each step skipped, unavailable, failed or inconclusive, and so
// which hypothesis stays open), and fills in the host's facts the words
// name, so no sentence asserts a step that did not run or a volume the
// host does not have. Without a reference there is no regression: the
// playbook's finding and its fix give way to where the write time goes.

// Placeholders a playbook's conclusion may use, filled from the host's
// facts (a fact the host did not give is said to be unknown).
const (
	PlaceholderVolume    = "{volume}"
	PlaceholderScheduler = "{scheduler}"
	PlaceholderDevice    = "{device}"
)

// NoReferenceText is what a walk without a reference can show, said at
// its start and in its conclusion.
const NoReferenceText = "no reference, so no regression to bisect: this walk shows where this host's write time goes, not what regressed"

// conclude is the walk's conclusion on the playbook's text for the step
// it ends on; unless asserted, that text is left out (it speaks of a
// measurement the step did not make).
func (w *Walk) conclude(step, text string, asserted bool) string {
	measured, unknown := w.evidence()
	var b strings.Builder
	if len(w.Reference()) == 0 {
		b.WriteString("No reference was given, so there is " + strings.TrimPrefix(NoReferenceText, "no reference, so ") + ".")
		if len(measured) > 0 {
			b.WriteString(" Against this host's own baseline: " + strings.Join(measured, "; ") + ".")
		}
		if len(unknown) > 0 {
			b.WriteString(" Not known: " + strings.Join(unknown, "; ") + ".")
		}
		b.WriteString(" No fix is prescribed; to bisect a regression, run again with --reference (a known-good run).")
		return b.String()
	}
	if asserted {
		b.WriteString(sentence(w.fill(text)))
	} else {
		b.WriteString("The walk ends at step " + step + " without its answer, so nothing is concluded from it.")
	}
	if len(unknown) > 0 {
		b.WriteString(" Not known: " + strings.Join(unknown, "; ") + ".")
	}
	if len(measured) > 0 {
		b.WriteString(" Measured: " + strings.Join(measured, "; ") + ".")
	}
	return b.String()
}

// fill puts the host's facts into a playbook's text.
func (w *Walk) fill(text string) string {
	volume, scheduler, device := "the volume (its type is not known here)", "the I/O scheduler", "the data device"
	if f := w.Host; f != nil {
		if f.Volume != nil && f.Volume.Type != "" {
			volume = "the " + f.Volume.Type + " volume (" + strings.TrimPrefix(f.Volume.String(), f.Volume.Type+" ") + ")"
		}
		if f.Scheduler != "" {
			scheduler += " (" + f.Scheduler + ")"
		}
		if f.Device != "" {
			device += " (" + f.Device + ")"
		}
	}
	return strings.NewReplacer(PlaceholderVolume, volume, PlaceholderScheduler, scheduler, PlaceholderDevice, device).Replace(text)
}

// evidence is what each step that ran says, in the playbook's order: a
// judged step with its multipliers, and a step that could not tell with
// the hypothesis it leaves open.
func (w *Walk) evidence() (measured, unknown []string) {
	for _, s := range w.Steps {
		switch s.State {
		case StatePending, StateRunning, StateDryRun:
			continue
		case StatePersists, StateGone, StateRegressed, StateSame, StateMeasured:
			measured = append(measured, w.multipliers(s))
		default:
			u := string(s.State)
			if s.Reason != "" {
				u += ": " + s.Reason
			}
			unknown = append(unknown, fmt.Sprintf("whether %s (%s %s)", hypothesisClause(s.Hypothesis), s.ID, u))
		}
	}
	return measured, unknown
}

// multipliers is a judged step as "tmpfs gone (p50 0.02x the regression's,
// 0.98x the reference's)": the table's multiplier (step / baseline, of the
// metric named), against each baseline.
func (w *Walk) multipliers(s *StepState) string {
	var parts []string
	last, judged := "", w.Metric()
	for _, v := range s.Verdicts {
		if v.Ratio <= 0 {
			continue // no ratio: a baseline median of 0
		}
		if judged != "" && v.Metric != judged {
			continue // the reproduce step's other metrics: its reason has them
		}
		against := "the " + string(v.Against) + "'s"
		if v.Against == AgainstRegression && len(w.Reference()) == 0 {
			against = "the baseline's"
		}
		p := verdict.FormatRatio(v.Ratio) + "x " + against
		if v.Metric != last { // the metric named once, while it stays the same
			p = verdict.Label(v.Metric) + " " + p
			last = v.Metric
		}
		parts = append(parts, p)
	}
	out := s.ID + " " + string(s.State)
	if s.State == StateMeasured {
		out += " (the baseline)"
	}
	if len(parts) > 0 {
		out += " (" + strings.Join(parts, ", ") + ")"
	}
	return out
}

// sentence ends text with a full stop, if it has none.
func sentence(text string) string {
	text = strings.TrimSpace(text)
	if text != "" && !strings.ContainsAny(text[len(text)-1:], ".!?") {
		text += "."
	}
	return text
}

// hypothesisClause makes "The disk is the bottleneck." follow "whether".
func hypothesisClause(h string) string {
	h = strings.TrimRight(strings.TrimSpace(h), ".")
	if h == "" {
		return "its hypothesis holds"
	}
	if len(h) > 1 && h[0] >= 'A' && h[0] <= 'Z' && !(h[1] >= 'A' && h[1] <= 'Z') {
		h = strings.ToLower(h[:1]) + h[1:]
	}
	return h
}
