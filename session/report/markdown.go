package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/guptarohit/asciigraph"
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
				name, _, lat := latency("p99_ms", s.samples)
				p("\n```text\n%s\n\n%s\n```\n", asciiChart(s.samples, func(x probe.Sample) float64 { return x.OpsPerS }, s.ID+": ops/s per second"),
					asciiChart(s.samples, lat, s.ID+": "+strings.TrimSuffix(name, "_ms")+" ms per second"))
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

func asciiChart(samples []probe.Sample, f func(probe.Sample) float64, caption string) string {
	vals := make([]float64, len(samples))
	for i, s := range samples {
		vals[i] = finite(f(s))
	}
	if len(vals) > 120 {
		vals = meanBuckets(vals, 120)
	}
	return asciigraph.Plot(vals, asciigraph.Height(6), asciigraph.Width(60), asciigraph.Caption(caption))
}

func meanBuckets(v []float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		lo, hi := i*len(v)/n, (i+1)*len(v)/n
		sum := 0.0
		for _, x := range v[lo:hi] {
			sum += x
		}
		out[i] = sum / float64(hi-lo)
	}
	return out
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
