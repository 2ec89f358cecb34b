package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/session"
	"github.com/perfbisect/perfbisect/tui/chart"
)

// View draws the whole screen in exactly width x height cells.
func (m *Model) View() string {
	w, h := max(m.width, 40), max(m.height, 12)
	if m.ask != nil {
		// A question about the host gets the whole screen, so that every
		// change and how it is put back can be read before answering.
		head := m.header(w)
		return fit(head+"\n"+m.askBox(w, h-3)+"\n"+m.footer(w), w, h)
	}
	top := strings.Split(m.header(w), "\n")
	top = append(top, m.table(w)...)
	top = append(top, m.hypothesis(w))
	bottom := append(append([]string{m.status(w)}, m.outcome(w)...), m.footer(w))

	middleH := max(h-len(top)-len(bottom), 3)
	var middle string
	switch {
	case m.noting:
		middle = m.box(w, middleH, "note for the session log (enter to record, esc to cancel)", []string{m.input.View()})
	case m.confirmQuit:
		middle = m.box(w, middleH, "quit?", []string{"A step is running. Quit stops it and puts every knob back first.", "", "quit? [y/N]"})
	case m.showHelp:
		middle = m.box(w, middleH, "keys", strings.Split(m.help.FullHelpView(m.keys.FullHelp()), "\n"))
	default:
		middle = m.charts(w, middleH)
	}
	return fit(strings.Join(top, "\n")+"\n"+middle+"\n"+strings.Join(bottom, "\n"), w, h)
}

func (m *Model) header(w int) string {
	st := m.st
	name, host, log := "perfbisect", "", ""
	if st.Start != nil {
		name += " · " + st.Start.Playbook
		host = st.Start.Host
	}
	if f := st.Host; f != nil {
		host = fmt.Sprintf("%s · %s · %s", f.Hostname, f.Kernel, fsText(f))
	}
	badge := " LIVE "
	if m.rp != nil {
		badge = " REPLAY " + m.rp.speedText() + " "
		log = m.rp.path
		if m.rp.torn != "" {
			badge += "· CUT SHORT "
		}
	} else if m.logPath != "" {
		log = m.logPath
	}
	left := m.styles.title.Render(name) + "  " + host
	right := elapsed(st, m.now) + "  " + m.styles.badge.Render(badge)
	room := w - lipgloss.Width(right) - 1
	line1 := pad(truncate(left, room), room) + " " + right
	line2 := m.styles.dim.Render(truncate(m.referenceText()+"log "+log+m.tornText(), w))
	if f := st.Host; f != nil && f.Lab != "" {
		line2 = m.styles.warn.Render(truncate(f.Lab+" · "+m.referenceText()+"log "+log, w))
	}
	return line1 + "\n" + line2
}

// referenceText says, before the log, that the walk has no reference
// (so nothing regressed that it could bisect) or one of another workload.
func (m *Model) referenceText() string {
	switch {
	case m.st.Start == nil:
		return ""
	case len(m.st.Start.ReferenceMismatch) > 0:
		return "REFERENCE OF ANOTHER WORKLOAD: " + strings.Join(m.st.Start.ReferenceMismatch, "; ") + " · "
	case len(m.st.Reference()) == 0:
		return "NO REFERENCE: where the write time goes, not what regressed · "
	}
	return ""
}

func (m *Model) tornText() string {
	if m.rp != nil && m.rp.torn != "" {
		return " · " + m.rp.torn
	}
	return ""
}

// fsText is the data dir with what it is on, for the screen's narrow lines.
func fsText(f *session.HostFacts) string { return fsOn(f, "") + " " + f.DataDir }

// fsOn says what the data dir is on, "ext4 on nvme1n1 (mq-deadline)", the
// scheduler named with label before it ("scheduler " where there is room).
func fsOn(f *session.HostFacts, label string) string {
	s := f.Filesystem
	if f.Device != "" {
		s += " on " + f.Device
	}
	if f.Scheduler != "" {
		s += " (" + label + f.Scheduler + ")"
	}
	return s
}

// elapsed is the session's time so far: up to its last event, or to now (the
// clock's last tick, live) when that is later — a knob taking a minute to
// apply records nothing meanwhile.
func elapsed(st *walkState, now time.Time) string {
	if st.Began.IsZero() {
		return ""
	}
	last := st.Last
	if now.After(last) && st.End == nil {
		last = now
	}
	d := last.Sub(st.Began).Round(time.Second)
	return fmt.Sprintf("%02d:%02d", int(d.Minutes()), int(d.Seconds())%60)
}

// table is the seeds' table with the playbook's steps: state, baseline
// median, step median, multiplier.
func (m *Model) table(w int) []string {
	metric := strings.TrimSuffix(m.st.Metric(), "_ms")
	base := "ref " + metric
	if len(m.st.Reference()) == 0 {
		base = "baseline " + metric
	}
	rows := []string{m.styles.dim.Render(pad(fmt.Sprintf("  %-16s %-13s %11s %11s %7s", "step", "state", base, "step "+metric, "x"), w))}
	for i, sv := range m.st.Steps {
		mark, style := m.styles.stateMark(sv.State)
		b, s, x := "", "", ""
		for _, v := range sv.Verdicts {
			// A reproduce step has a verdict per metric: the one the
			// steps are judged on is the table's.
			if v.Metric == m.st.Metric() && (v.Against == session.AgainstReference || len(sv.Verdicts) == 1) {
				b, s, x = probe.MsText(v.BaseMedian), probe.MsText(v.StepMedian), fmt.Sprintf("%.2fx", v.Ratio)
			}
		}
		state := string(sv.State)
		if sv.State == session.StateRunning {
			state = fmt.Sprintf("running %ds", seconds(sv))
		}
		row := fmt.Sprintf("%s %-16s %-13s %11s %11s %7s", mark, truncate(sv.ID, 16), truncate(state, 13), b, s, x)
		// A regressed reproduce step's reason says on which metrics, and
		// which one the later steps are judged on.
		if sv.Reason != "" && (sv.State == session.StateUnavailable || sv.State == session.StateFailed || sv.State == session.StateSkipped || sv.JudgedOn != "") {
			row += "  " + sv.Reason
		}
		row = truncate(row, w)
		if i == m.selected && m.focus == 0 {
			rows = append(rows, m.styles.selected.Render(pad(row, w)))
			continue
		}
		rows = append(rows, style.Render(row))
	}
	return rows
}

func (m *Model) hypothesis(w int) string {
	if m.selected < 0 || m.selected >= len(m.st.Steps) {
		return ""
	}
	sv := m.st.Steps[m.selected]
	return truncate(sv.Title+": "+sv.Hypothesis, w)
}

// charts draws throughput and latency of the running step over the
// reference and the regression, aligned on the run's seconds, stacked in h
// lines. It reads only the window from the rings, into reused buffers.
func (m *Model) charts(w, h int) string {
	src := m.st
	if m.frozen != nil {
		src = m.frozen
	}
	window := windows[m.window]
	from := src.ring.WindowStart(window)
	name := "step"
	cur := m.st.Current()
	if cur != nil {
		name = "step " + cur.ID
	}
	frozen := ""
	if m.frozen != nil {
		frozen = " [frozen]"
	}
	draw := func(title string, field probe.Field, height int) string {
		var series []chart.Series
		// A reference from another tool may lack this field: no line, no legend.
		if src.reference.Len() > 0 && src.refHas.Has(field) {
			m.bufs[0] = src.reference.Range(m.bufs[0], field, from, window)
			series = append(series, chart.Series{Name: "reference", Values: m.bufs[0], Color: chart.ColorReference, Reduce: chart.Worst(field)})
		}
		if src.repro.Len() > 0 && (cur == nil || !cur.Reproduce) {
			m.bufs[1] = src.repro.Range(m.bufs[1], field, from, window)
			series = append(series, chart.Series{Name: "regression", Values: m.bufs[1], Color: chart.ColorRegression, Reduce: chart.Worst(field)})
		}
		m.bufs[2] = src.ring.Range(m.bufs[2], field, from, window)
		series = append(series, chart.Series{Name: name, Values: m.bufs[2], Color: chart.ColorStep, Reduce: chart.Worst(field)})
		c := chart.Chart{Title: fmt.Sprintf("%s, last %ds%s", title, window, frozen), Series: series, Window: window, FirstSec: from, Color: m.color}
		return c.Render(w, height)
	}
	lat := chart.Measured(m.metric, m.st.Measures())
	if h < 12 {
		return draw("latency "+lat.Title(), lat, h)
	}
	top := h / 2
	return draw("throughput", probe.FieldOps, top) + "\n" + draw("latency "+lat.Title(), lat, h-top)
}

func (m *Model) status(w int) string {
	st := m.st
	sv := st.Current()
	if sv == nil {
		if line := lastActivity(st); line != "" {
			return truncate(line, w)
		}
		return ""
	}
	done := float64(seconds(sv)) / max(sv.PlannedS, 1)
	label := fmt.Sprintf(" %ds/%.0fs ", seconds(sv), sv.PlannedS)
	var last probe.Sample // the step's last second (none yet: a zero line)
	if n := len(sv.Samples); n > 0 {
		last = sv.Samples[n-1]
	}
	nums := fmt.Sprintf("%.0f ops/s", last.OpsPerS)
	for _, f := range probe.Latencies(last.Measured()) {
		if f != probe.FieldMax { // the progress line is short: max is in the chart's m cycle
			v, _ := last.Get(f)
			nums += fmt.Sprintf("  %s %s", f.Label(), probe.MsText(v))
		}
	}
	nums += " ms"
	bar := m.bar
	bar.Width = max(10, w-lipgloss.Width(label)-lipgloss.Width(nums))
	return truncate(bar.ViewAs(min(done, 1))+label+nums, w)
}

func lastActivity(st *walkState) string {
	if len(st.activity) == 0 {
		return ""
	}
	return st.activity[len(st.activity)-1]
}

// conclusionLines is how many lines the screen gives a conclusion: it
// says what was measured and what is not known, which one line cuts off
// (the report and the summary on exit have it whole).
const conclusionLines = 3

// outcome says the last verdict and decision, or the conclusion.
func (m *Model) outcome(w int) []string {
	if c := m.st.Conclusion(); c != "" {
		lines := wrapWords("conclusion: "+c, w, conclusionLines)
		for i, l := range lines {
			lines[i] = m.styles.bold.Render(l)
		}
		return lines
	}
	return []string{m.decisionLine(w)}
}

// wrapWords fills at most n lines of w cells with the words of s, the last
// one cut with an ellipsis when they do not all fit.
func wrapWords(s string, w, n int) []string {
	var lines []string
	cur := ""
	for _, word := range strings.Fields(s) {
		switch {
		case cur == "":
			cur = word
		case lipgloss.Width(cur)+1+lipgloss.Width(word) <= w:
			cur += " " + word
		default:
			lines = append(lines, truncate(cur, w))
			cur = word
		}
	}
	lines = append(lines, truncate(cur, w))
	if len(lines) > n {
		lines = lines[:n]
		lines[n-1] = truncate(lines[n-1], w-1) + "…"
	}
	return lines
}

func (m *Model) decisionLine(w int) string {
	if sv := m.st.Decided(); sv != nil {
		line := fmt.Sprintf("%s: %s", sv.ID, sv.State)
		if sv.Decision.Next != "" {
			line += " → next: " + sv.Decision.Next
		}
		if sv.Decision.Meaning != "" {
			line += " — " + sv.Decision.Meaning
		}
		return truncate(line, w)
	}
	if m.rp == nil && !m.running {
		return truncate("press enter to run the first step", w)
	}
	return ""
}

func (m *Model) footer(w int) string {
	if m.rp != nil && m.rp.done {
		if left := m.st.NotPutBack(); len(left) > 0 {
			return m.styles.bad.Render(truncate(notPutBackLine(left)+" · end of the recording — q to quit", w))
		}
		return truncate("end of the recording — q to quit", w)
	}
	return truncate(m.help.ShortHelpView(m.keys.ShortHelp()), w)
}

func (m *Model) askBox(w, h int) string {
	a := m.ask
	var lines []string
	for _, c := range a.changes {
		lines = append(lines, c.Knob+":")
		if c.Before != "" {
			lines = append(lines, "  now:      "+c.Before)
		}
		for _, d := range c.Do {
			lines = append(lines, "  do:       "+d)
		}
		for _, u := range c.Undo {
			lines = append(lines, "  put back: "+u)
		}
	}
	for _, l := range a.lines {
		lines = append(lines, "  "+l)
	}
	prompt := "apply these changes? [y/N]"
	if a.manual {
		prompt = "done? [y = done, N = skip this step]"
	}
	if a.byHand != nil {
		return m.box(w, h, a.title, append(append(lines, ""), a.byHand.lines()...))
	}
	return m.box(w, h, a.title+" — "+prompt, append(lines, "", prompt))
}

// box frames lines with a title in w x h.
func (m *Model) box(w, h int, title string, lines []string) string {
	inner := max(1, w-4)
	var b []string
	for _, l := range lines {
		// Wrap rather than cut: a command or a path is read in full.
		b = append(b, strings.Split(lipgloss.NewStyle().Width(inner).Render(l), "\n")...)
	}
	if room := max(2, h-3); len(b) > room {
		// Cut the middle, never the last line: it is the question.
		last := b[len(b)-1]
		b = append(b[:room-2], truncate(fmt.Sprintf("… %d more lines", len(b)-room+1), inner), last)
	}
	body := m.styles.bold.Render(truncate(title, inner)) + "\n" + strings.Join(b, "\n")
	return fit(m.styles.box.Width(w-2).Render(body), w, h)
}

// fit pads or cuts s to exactly w x h cells.
func fit(s string, w, h int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	for i, l := range lines {
		lines[i] = pad(truncate(l, w), w)
	}
	return strings.Join(lines, "\n")
}

func pad(s string, w int) string {
	if d := w - lipgloss.Width(s); d > 0 {
		return s + strings.Repeat(" ", d)
	}
	return s
}

// truncate cuts s to w cells, styles included.
func truncate(s string, w int) string {
	if lipgloss.Width(s) <= w {
		return s
	}
	return lipgloss.NewStyle().MaxWidth(w).Render(s)
}
