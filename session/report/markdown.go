package report

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/guptarohit/asciigraph"
	"github.com/perfbisect/perfbisect/internal/series"
	"github.com/perfbisect/perfbisect/probe"
)

// Markdown writes the report as Markdown, with text charts in each step.
func (r *Report) Markdown(out io.Writer) error {
	w := bufio.NewWriter(out)
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	for i, b := range r.outline() {
		if i > 0 {
			p("\n")
		}
		switch b := b.(type) {
		case heading:
			p("%s %s\n", strings.Repeat("#", b.level), mdLine(b.line))
		case para:
			if b.class == "cut" {
				p("> ")
			}
			p("%s\n", mdLine(b.line))
		case list:
			mdList(w, b.items)
		case table:
			p("|")
			for _, h := range b.header {
				p(" %s |", mdText(h))
			}
			p("\n|")
			for _, n := range b.num {
				if n {
					p("---:|")
				} else {
					p("---|")
				}
			}
			p("\n")
			for _, row := range b.rows {
				p("|")
				for _, c := range row {
					p(" %s |", mdText(c))
				}
				p("\n")
			}
		case pre:
			p("```%s\n%s\n```\n", b.lang, b.text)
		case stepBlock:
			p("### %s\n\n", mdLine(b.title))
			mdList(w, b.items)
			if s := b.step; len(s.samples) >= 2 {
				name, field, lat := latency("p99_ms", s.samples)
				p("\n```text\n%s\n\n%s\n```\n", asciiChart(s.samples, func(x probe.Sample) float64 { return x.OpsPerS }, probe.FieldOps, s.ID+": ops/s per second"),
					asciiChart(s.samples, lat, field, s.ID+": "+strings.TrimSuffix(name, "_ms")+" ms per second"))
			}
		}
	}
	return w.Flush()
}

func mdList(w *bufio.Writer, items []item) {
	for _, it := range items {
		fmt.Fprintf(w, "- %s\n", mdLine(it.line))
		for _, l := range it.sub {
			fmt.Fprintf(w, "  - %s\n", mdLine(l))
		}
	}
}

func mdLine(l line) string {
	var b strings.Builder
	for _, s := range l {
		switch s.kind {
		case code:
			b.WriteString(mdCode(s.text))
		case strong, alarm:
			b.WriteString("**" + mdText(s.text) + "**")
		default:
			b.WriteString(mdText(s.text))
		}
	}
	return b.String()
}

// asciiChart plots f of each second; a long run is cut into 60 buckets,
// each drawn by its worst second (the highest of a latency, the lowest of a
// throughput: field's direction), so a one-second stall stays visible. NaN
// is a gap.
func asciiChart(samples []probe.Sample, f func(probe.Sample) float64, field probe.Field, caption string) string {
	vals := make([]float64, len(samples))
	some := false
	for i, s := range samples {
		vals[i] = f(s)
		some = some || !math.IsNaN(vals[i])
	}
	if !some {
		return caption + ": no second has a value"
	}
	// asciigraph resamples to its width by interpolating, which would
	// average a spike away: a long run is cut to exactly that width here.
	const width = 60
	if len(vals) > width {
		vals = series.Resample(make([]float64, width), vals, len(vals), series.Worst(field.HigherIsWorse()))
	}
	return asciigraph.Plot(vals, asciigraph.Height(6), asciigraph.Width(width), asciigraph.Caption(caption))
}

var mdEscaper = strings.NewReplacer(`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "<", "&lt;", ">", "&gt;", "|", `\|`, "\n", " ")

// mdText escapes text for Markdown prose.
func mdText(s string) string { return mdEscaper.Replace(s) }

// mdCode puts s in a code span.
func mdCode(s string) string {
	if s == "" {
		return ""
	}
	s = strings.ReplaceAll(s, "\n", " ")
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if fence != "`" {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}
