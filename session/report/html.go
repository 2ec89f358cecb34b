package report

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/perfbisect/perfbisect/internal/series"
	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/session/verdict"
)

// maxPoints bounds the points of one polyline: a longer series is cut into
// maxPoints/2 buckets, each drawn by its minimum and its maximum.
const maxPoints = 600

const css = `body{font-family:system-ui,sans-serif;max-width:60em;margin:1em auto;padding:0 1em;color:#111;line-height:1.4}
h1{font-size:1.5em}h2{border-bottom:1px solid #ccc;margin-top:1.5em}
.conclusion{font-size:1.1em;background:#f3f6fa;border-left:4px solid #36c;padding:.5em 1em}
.cut{background:#fff4e0;border-left:4px solid #c80;padding:.5em 1em}
.revert-failed{color:#b00;font-weight:bold}
table{border-collapse:collapse}th,td{border:1px solid #ccc;padding:.2em .6em;text-align:left}td.num{text-align:right}
code,pre{font-family:ui-monospace,monospace;font-size:.9em}pre{background:#f6f6f6;padding:.5em;overflow-x:auto}
.chart{margin:.5em 0}.chart svg{display:block;margin:.3em 0;max-width:100%;height:auto}
.legend span{margin-right:1em}.k-step{color:#36c}.k-ref{color:#393}.k-reg{color:#c33}
@media print{body{max-width:none;margin:0;font-size:10pt}.step,.chart,table{page-break-inside:avoid}pre{white-space:pre-wrap}h2{page-break-after:avoid}}`

// HTML writes the report as one self-contained HTML page (no script, no
// external style, font or image); the charts are inline SVG, in each step.
// It is also well-formed XML.
func (r *Report) HTML(out io.Writer) error {
	w := bufio.NewWriterSize(out, 64<<10)
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>%s</title>\n<style>\n%s\n</style>\n</head>\n<body>\n", html.EscapeString(r.title()), css)
	reg := r.reproduce()
	for _, b := range r.outline() {
		switch b := b.(type) {
		case heading:
			p("<h%d>%s</h%d>\n", b.level, htmlLine(b.line), b.level)
		case para:
			if b.class != "" {
				p("<p class=\"%s\">%s</p>\n", b.class, htmlLine(b.line))
			} else {
				p("<p>%s</p>\n", htmlLine(b.line))
			}
		case list:
			htmlList(w, b.items)
		case table:
			p("<table>\n<thead><tr>")
			for _, h := range b.header {
				p("<th>%s</th>", html.EscapeString(h))
			}
			p("</tr></thead>\n<tbody>\n")
			for _, row := range b.rows {
				p("<tr>")
				for i, c := range row {
					if b.num[i] {
						p("<td class=\"num\">%s</td>", html.EscapeString(c))
					} else {
						p("<td>%s</td>", html.EscapeString(c))
					}
				}
				p("</tr>\n")
			}
			p("</tbody>\n</table>\n")
		case pre:
			p("<pre>%s</pre>\n", html.EscapeString(b.text))
		case stepBlock:
			p("<section class=\"step\">\n<h3>%s</h3>\n", htmlLine(b.title))
			htmlList(w, b.items)
			if len(b.step.samples) > 0 {
				r.stepCharts(w, b.step, reg)
			}
			p("</section>\n")
		}
	}
	p("</body>\n</html>\n")
	return w.Flush()
}

func htmlList(w *bufio.Writer, items []item) {
	w.WriteString("<ul>\n")
	for _, it := range items {
		fmt.Fprintf(w, "<li>%s", htmlLine(it.line))
		if len(it.sub) > 0 {
			w.WriteString("\n<ul>\n")
			for _, l := range it.sub {
				fmt.Fprintf(w, "<li>%s</li>\n", htmlLine(l))
			}
			w.WriteString("</ul>")
		}
		w.WriteString("</li>\n")
	}
	w.WriteString("</ul>\n")
}

func htmlLine(l line) string {
	var b strings.Builder
	for _, s := range l {
		t := html.EscapeString(s.text)
		switch s.kind {
		case code:
			b.WriteString("<code>" + t + "</code>")
		case strong:
			b.WriteString("<strong>" + t + "</strong>")
		case alarm:
			b.WriteString("<span class=\"revert-failed\">" + t + "</span>")
		default:
			b.WriteString(t)
		}
	}
	return b.String()
}

// trace is one run's line on a chart.
type trace struct {
	class string // k-step, k-ref, k-reg
	color string
	dash  string
	vals  []float64
}

// stepCharts draws a step's per-second throughput and p99, with the
// reference and the regression overlaid, and a histogram of its per-second
// p50 values.
func (r *Report) stepCharts(w *bufio.Writer, s *Step, reg *Step) {
	get := func(ss []probe.Sample, f func(probe.Sample) float64) []float64 {
		v := make([]float64, len(ss))
		for i, x := range ss {
			v[i] = f(x) // NaN: no value that second (a gap)
		}
		return v
	}
	ops := func(x probe.Sample) float64 { return x.OpsPerS }
	// The latency the step's workload measured (pgbench: the average); a
	// run that did not measure it is left out of that chart.
	latName, latField, lat := latency("p99_ms", s.samples)
	mk := func(field probe.Field, f func(probe.Sample) float64) []trace {
		out := []trace{{"k-step", "#36c", "", get(s.samples, f)}}
		if len(r.refSamples) > 0 && verdict.Measured(r.refSamples).Has(field) {
			out = append(out, trace{"k-ref", "#393", "6 3", get(r.refSamples, f)})
		}
		if reg != nil && reg != s && len(reg.samples) > 0 && verdict.Measured(reg.samples).Has(field) {
			out = append(out, trace{"k-reg", "#c33", "2 3", get(reg.samples, f)})
		}
		return out
	}
	fmt.Fprintf(w, "<div class=\"chart\" id=\"chart-%s\">\n", html.EscapeString(s.ID))
	legend := "<span class=\"k-step\">━ this step</span>"
	if len(r.refSamples) > 0 {
		legend += "<span class=\"k-ref\">╍ reference</span>"
	}
	if reg != nil && reg != s && len(reg.samples) > 0 {
		legend += "<span class=\"k-reg\">┈ regression (" + html.EscapeString(reg.ID) + ")</span>"
	}
	fmt.Fprintf(w, "<p class=\"legend\">%s</p>\n", legend)
	lineChart(w, "throughput, ops/s per second", mk(probe.FieldOps, ops))
	lineChart(w, strings.TrimSuffix(latName, "_ms")+" latency, ms per second", mk(latField, lat))
	histName, _, hist := latency("p50_ms", s.samples)
	histogram(w, "distribution of the step's per-second "+strings.TrimSuffix(histName, "_ms")+" latency (ms), a histogram of its seconds", get(s.samples, hist))
	w.WriteString("</div>\n")
}

const (
	chartW, chartH = 640, 160
	padL, padR     = 56, 8
	padT, padB     = 20, 22
)

func num(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

func axisText(f float64) string {
	switch {
	case f == 0:
		return "0"
	case math.Abs(f) >= 100:
		return strconv.FormatFloat(f, 'f', 0, 64)
	}
	return strconv.FormatFloat(f, 'g', 3, 64)
}

func lineChart(w *bufio.Writer, title string, ss []trace) {
	n, hi := 0, 0.0
	for _, s := range ss {
		n = max(n, len(s.vals))
		for _, v := range s.vals {
			if !math.IsNaN(v) {
				hi = max(hi, v)
			}
		}
	}
	if hi <= 0 {
		hi = 1
	}
	pw, ph := float64(chartW-padL-padR), float64(chartH-padT-padB)
	fmt.Fprintf(w, "<svg width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"%s\">\n", chartW, chartH, chartW, chartH, html.EscapeString(title))
	fmt.Fprintf(w, "<text x=\"%d\" y=\"14\" font-size=\"12\">%s</text>\n", padL, html.EscapeString(title))
	fmt.Fprintf(w, "<rect x=\"%d\" y=\"%d\" width=\"%s\" height=\"%s\" fill=\"none\" stroke=\"#ccc\"/>\n", padL, padT, num(pw), num(ph))
	fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\" font-size=\"10\" text-anchor=\"end\">%s</text>\n", padL-4, padT+8, axisText(hi))
	fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\" font-size=\"10\" text-anchor=\"end\">0</text>\n", padL-4, chartH-padB)
	fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\" font-size=\"10\">0 s</text>\n", padL, chartH-6)
	fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\" font-size=\"10\" text-anchor=\"end\">%d s</text>\n", chartW-padR, chartH-6, n)
	// draw the overlays first, the step on top
	for i := len(ss) - 1; i >= 0; i-- {
		s := ss[i]
		if len(s.vals) == 0 {
			continue
		}
		xs, ys := downsample(s.vals, maxPoints)
		dash := ""
		if s.dash != "" {
			dash = " stroke-dasharray=\"" + s.dash + "\""
		}
		// One polyline per run of values: a second without one is a gap.
		den := float64(max(n-1, 1))
		open := false
		for j := range xs {
			if math.IsNaN(ys[j]) {
				if open {
					w.WriteString("\"/>\n")
					open = false
				}
				continue
			}
			if !open {
				fmt.Fprintf(w, "<polyline class=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.2\"%s points=\"", s.class, s.color, dash)
				open = true
			} else {
				w.WriteByte(' ')
			}
			w.WriteString(num(float64(padL) + xs[j]/den*pw))
			w.WriteByte(',')
			w.WriteString(num(float64(padT) + ph - ys[j]/hi*ph))
		}
		if open {
			w.WriteString("\"/>\n")
		}
	}
	w.WriteString("</svg>\n")
}

// downsample returns at most limit points of v (x is the index): v itself
// when short enough, else the lowest and the highest of each of limit/2
// buckets, in the order they occur, so both a stall and a spike survive;
// NaNs (gaps) are passed over, and a bucket of nothing but NaN is one NaN
// point.
func downsample(v []float64, limit int) (xs, ys []float64) {
	if len(v) <= limit {
		xs = make([]float64, len(v))
		for i := range v {
			xs[i] = float64(i)
		}
		return xs, v
	}
	nb := limit / 2
	xs, ys = make([]float64, 0, limit), make([]float64, 0, limit)
	for b := range nb {
		lo, hi := series.Bucket(b, nb, len(v))
		mi, ma := series.Index(v[lo:hi], series.Min), series.Index(v[lo:hi], series.Max)
		if mi < 0 {
			xs = append(xs, float64(lo))
			ys = append(ys, math.NaN())
			continue
		}
		a, c := lo+min(mi, ma), lo+max(mi, ma)
		xs = append(xs, float64(a))
		ys = append(ys, v[a])
		if c != a {
			xs = append(xs, float64(c))
			ys = append(ys, v[c])
		}
	}
	return xs, ys
}

func histogram(w *bufio.Writer, title string, v []float64) {
	const bins = 30
	v = slices.DeleteFunc(slices.Clone(v), math.IsNaN) // a second without operations has no latency
	if len(v) == 0 {
		return
	}
	lo, hi := v[0], v[0]
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
	}
	counts := make([]int, bins)
	for _, x := range v {
		i := 0
		if hi > lo {
			i = int((x - lo) / (hi - lo) * bins)
		}
		counts[min(i, bins-1)]++
	}
	top := 1
	for _, c := range counts {
		top = max(top, c)
	}
	pw, ph := float64(chartW-padL-padR), float64(chartH-padT-padB)
	bw := pw / bins
	fmt.Fprintf(w, "<svg width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"%s\">\n", chartW, chartH, chartW, chartH, html.EscapeString(title))
	fmt.Fprintf(w, "<text x=\"%d\" y=\"14\" font-size=\"12\">%s</text>\n", padL, html.EscapeString(title))
	fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\" font-size=\"10\" text-anchor=\"end\">%d s</text>\n", padL-4, padT+8, top)
	for i, c := range counts {
		if c == 0 {
			continue
		}
		h := float64(c) / float64(top) * ph
		fmt.Fprintf(w, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"#36c\"/>\n", num(float64(padL)+float64(i)*bw), num(float64(padT)+ph-h), num(max(bw-1, 1)), num(h))
	}
	fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\" font-size=\"10\">%s ms</text>\n", padL, chartH-6, axisText(lo))
	fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\" font-size=\"10\" text-anchor=\"end\">%s ms</text>\n", chartW-padR, chartH-6, axisText(hi))
	w.WriteString("</svg>\n")
}
