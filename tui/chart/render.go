package chart

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/guptarohit/asciigraph"
	"github.com/perfbisect/perfbisect/internal/series"
)

// Color is a colour of the xterm 256-colour palette (0–15 being the
// terminal's own sixteen). The zero Color asks Render to pick one from its
// palette by the series' index.
type Color uint8

// The colours of the runs a bisect step is drawn against.
const (
	ColorStep       Color = 39  // the running step: bright blue
	ColorReference  Color = 245 // the known-good reference run: grey
	ColorRegression Color = 203 // the reproduced regression: red
)

// palette colours the series that leave Color zero, counting from the last
// series (the one on top, the running step) down.
var palette = [...]Color{ColorStep, ColorRegression, ColorReference, 214, 141, 78}

// Lipgloss is c for lipgloss styles, so that text elsewhere in the TUI (a
// table row, a verdict) can wear the colour of its series.
func (c Color) Lipgloss() lipgloss.Color { return lipgloss.Color(strconv.Itoa(int(c))) }

// ansi is c as asciigraph writes it. asciigraph reserves 188 as its name for
// black, so 188 becomes 252, the nearest grey it does not reserve.
func (c Color) ansi() asciigraph.AnsiColor {
	if c == 188 {
		return 252
	}
	return asciigraph.AnsiColor(c)
}

// Series is one run on a chart.
type Series struct {
	// Name is the legend's text for the run ("step tmpfs", "reference").
	Name string
	// Values holds one value a second, Values[0] being at the chart's
	// FirstSec. NaN (and ±Inf) is a second without a value: a gap.
	Values []float64
	// Color is the run's colour when the chart is in colour; zero picks one.
	Color Color
	// Reduce folds the seconds that share a column when the window has
	// more seconds than the chart has columns; Worst picks the one that
	// keeps what matters about a field visible. The zero Reduce is the mean.
	Reduce series.Reduce
}

// Chart is what one chart shows. Render draws it.
type Chart struct {
	// Title heads the chart, followed on the same line by the legend when
	// both fit. Title and series names are plain text: escape codes are
	// removed, control characters become spaces.
	Title string
	// Series are drawn overlaid, each later one over the earlier ones: put
	// the run that matters (the running step) last. The legend keeps this
	// order. With colour off, the last series is drawn with solid lines and
	// the ones under it with dots (·), then +, x, *, o.
	Series []Series
	// Window is how many seconds the x axis spans (at most 2^31). Series
	// shorter than the window are drawn from the left; values past the
	// window are not drawn. Below 1, the window is the longest series.
	Window int
	// FirstSec is the run second of the leftmost column, which labels the x
	// axis: Ring.WindowStart gives it for a window that follows a run.
	FirstSec int
	// Color asks for colour: xterm-256 escape codes (ESC[38;5;Nm), the ones
	// asciigraph writes. Without it (NO_COLOR, an ASCII profile, goldens) the
	// output has no escape code at all.
	Color bool
}

// Render draws a chart of width x height cells whose x axis counts seconds
// from 1, with a window as long as the longest series. It is
// Chart{Title: title, Series: series, FirstSec: 1, Color: color}.Render(width,
// height); use a Chart to give the window, and where on the run it starts.
func Render(title string, width, height int, series []Series, color bool) string {
	return Chart{Title: title, Series: series, FirstSec: 1, Color: color}.Render(width, height)
}

const (
	maxWindow = 1 << 31
	maxSec    = 1 << 40
	gutter    = 3 // asciigraph's Offset: a space before the label, a space and the axis after it
	waiting   = "waiting for the first second"
)

// Render draws the chart in exactly width x height cells: height lines
// joined by "\n" (no newline after the last), each width cells wide, for any
// values. From the top: the title and legend (one line when they fit, two
// otherwise), the plot with its y-axis labels, and the x axis in run seconds.
// The y axis starts at 0 (or below, for negative values) and ends at a round
// value, so the plot does not magnify noise. When there is no value yet it
// draws the empty frame with "waiting for the first second"; when the box is
// too small for a plot, only the text that fits. A width or height below 1
// gives "".
func (c Chart) Render(width, height int) string {
	if width <= 0 || height <= 0 {
		return ""
	}
	window := c.Window
	if window < 1 {
		for _, s := range c.Series {
			window = max(window, len(s.Values))
		}
	}
	window = min(window, maxWindow)
	first := min(max(c.FirstSec, -maxSec), maxSec)

	head := c.header(width, false)
	rows := height - len(head) - 1 // one line for the x axis
	if rows < 2 && len(head) > 1 {
		head = c.header(width, true)
		rows = height - len(head) - 1
	}
	xaxis := rows >= 2
	if !xaxis {
		rows = height - len(head)
	}
	dmin, dmax, some := dataRange(c.Series, window)

	var b strings.Builder
	b.Grow(height * (width + 16))
	for _, l := range head {
		writeLine(&b, l, width, c.Color)
	}
	var pad int // columns left of the plot: labels, gutter and axis
	switch {
	case rows < 2:
		// No room for a plot; say what there is to say.
		pad = -1
		if !some && rows > 0 {
			writeLine(&b, waiting, width, false)
			rows--
		}
		for range rows {
			writeLine(&b, "", width, false)
		}
	case !some:
		pad = gutter + 2
		for r := range rows {
			line := strings.Repeat(" ", pad-1) + "┤"
			if r == (rows-1)/2 {
				line += "  " + waiting
			}
			writeLine(&b, line, width, false)
		}
	default:
		pad = c.plot(&b, width, rows, window, dmin, dmax)
		if pad < 0 {
			for range rows {
				writeLine(&b, "", width, false)
			}
		}
	}
	if xaxis {
		if pad > 0 && width-pad >= 1 && window >= 1 {
			writeLine(&b, xAxis(width, pad, width-pad+1, window, first), width, false)
		} else {
			writeLine(&b, "", width, false)
		}
	}
	out := b.String()
	return out[:len(out)-1] // the last newline
}

// plot writes rows lines of plot to b and returns the columns left of the
// plot area, or -1, having written nothing, when labels leave no room.
func (c Chart) plot(b *strings.Builder, width, rows, window int, dmin, dmax float64) int {
	sc := newScale(dmin, dmax, rows-1)
	pad := gutter + sc.width
	cols := width - pad
	if cols < 1 {
		return -1
	}
	// asciigraph puts the first value on the axis and each next one a column
	// further, so cols columns right of the axis take cols+1 positions.
	n := cols + 1
	data := make([][]float64, len(c.Series))
	store := make([]float64, n*len(c.Series))
	for i, s := range c.Series {
		data[i] = resample(store[i*n:(i+1)*n], s.Values, s.Reduce, window, sc.lo, sc.hi)
	}
	opts := []asciigraph.Option{
		asciigraph.Height(rows - 1),
		asciigraph.LowerBound(sc.lo),
		asciigraph.UpperBound(sc.hi),
		asciigraph.Offset(gutter),
		asciigraph.YAxisValueFormatter(sc.label),
	}
	if c.Color {
		colors := make([]asciigraph.AnsiColor, len(c.Series))
		for i := range c.Series {
			colors[i] = c.color(i).ansi()
		}
		opts = append(opts, asciigraph.SeriesColors(colors...))
	} else {
		chars := make([]asciigraph.CharSet, len(c.Series))
		for i := range c.Series {
			chars[i] = c.chars(i)
		}
		opts = append(opts, asciigraph.SeriesChars(chars...))
	}
	if len(data) == 0 { // cannot happen with a value to draw; asciigraph would panic
		return -1
	}
	out := asciigraph.PlotMany(data, opts...)
	// asciigraph gives rows lines; rounding could give one more or fewer, so
	// take exactly rows whatever it gives.
	for range rows {
		line, rest, _ := strings.Cut(out, "\n")
		out = rest
		writeLine(b, line, width, c.Color)
	}
	return pad
}

// color is the colour of the i-th series.
func (c Chart) color(i int) Color {
	if col := c.Series[i].Color; col != 0 {
		return col
	}
	return palette[(len(c.Series)-1-i)%len(palette)]
}

// charsets tell series apart without colour, counting from the last series
// (drawn on top) down: solid lines, dots, dashes, then marks.
var charsets = [...]asciigraph.CharSet{
	asciigraph.DefaultCharSet,
	asciigraph.CreateCharSet("·"),
	{Horizontal: "╌", VerticalLine: "╎"}, // asciigraph fills in the arcs and caps
	asciigraph.CreateCharSet("+"),
	asciigraph.CreateCharSet("x"),
	asciigraph.CreateCharSet("o"),
}

// chars is the i-th series' charset without colour.
func (c Chart) chars(i int) asciigraph.CharSet {
	cs := charsets[(len(c.Series)-1-i)%len(charsets)]
	if cs.Horizontal == "╌" { // the legend reads it, so no field may be empty
		cs.ArcDownRight, cs.ArcDownLeft, cs.ArcUpRight, cs.ArcUpLeft = "╭", "╮", "╰", "╯"
		cs.EndCap, cs.StartCap, cs.UpRight, cs.DownHorizontal = "╴", "╶", "└", "┬"
	}
	return cs
}

// header is the title and legend: one line when they fit (or when one is
// asked for, cut to width), two lines otherwise.
func (c Chart) header(width int, one bool) []string {
	title := plain(c.Title)
	if c.Color && title != "" {
		title = "\x1b[1m" + title + "\x1b[0m"
	}
	if len(c.Series) == 0 {
		return []string{title}
	}
	var legend strings.Builder
	for i, s := range c.Series {
		if i > 0 {
			legend.WriteString("  ")
		}
		mark := strings.Repeat(c.chars(i).Horizontal, 2)
		if c.Color {
			mark = c.color(i).ansi().String() + strings.Repeat(asciigraph.DefaultCharSet.Horizontal, 2) + "\x1b[0m"
		}
		legend.WriteString(mark)
		legend.WriteString(" ")
		legend.WriteString(plain(s.Name))
	}
	if title == "" {
		return []string{legend.String()}
	}
	if one || ansi.StringWidth(title)+2+ansi.StringWidth(legend.String()) <= width {
		return []string{title + "  " + legend.String()}
	}
	return []string{title, legend.String()}
}

// plain is s without escape codes, its control characters (a newline would
// add a line) made spaces: titles and names are styled here or not at all.
func plain(s string) string {
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, ansi.Strip(s))
}

// writeLine writes s cut or padded to width cells, and a newline. A cut
// coloured line is reset so that its colour cannot run into what follows.
func writeLine(b *strings.Builder, s string, width int, color bool) {
	w := ansi.StringWidth(s)
	if w > width {
		s = ansi.Truncate(s, width, "")
		if color {
			s += "\x1b[0m"
		}
		w = ansi.StringWidth(s)
	}
	b.WriteString(s)
	for ; w < width; w++ {
		b.WriteByte(' ')
	}
	b.WriteByte('\n')
}
