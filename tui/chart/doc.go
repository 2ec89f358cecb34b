// Package chart owns the live charts of perfbisect: a bounded Ring that keeps
// the last samples of a run, how a chart shows a probe.Field (its title, the
// worst second of a column, the `m` key's cycle of latencies), and Render,
// which plots one or more runs overlaid in a fixed box of terminal cells.
//
// Everything here is cheap enough for every frame of a bubbletea View: a Ring
// has fixed memory and Push never allocates, reading a window costs the window
// (never the history), and Render resamples each series to the columns it has
// before plotting, so a 600-second window costs what the chart's width costs.
// Nothing sorts, and nothing grows with the length of a run.
//
// A frame of the TUI, with the step, the reference run and the reproduced
// regression aligned on the run's seconds:
//
//	from := step.WindowStart(window)            // first second of the last `window` seconds
//	c := chart.Chart{
//		Title:    "latency " + field.Title(),
//		Window:   window,
//		FirstSec: from,
//		Color:    color,
//		Series: []chart.Series{ // later series are drawn over earlier ones
//			{Name: "reference", Values: ref.Range(bufs[0], field, from, window), Color: chart.ColorReference, Reduce: chart.Worst(field)},
//			{Name: "regression", Values: repro.Range(bufs[1], field, from, window), Color: chart.ColorRegression, Reduce: chart.Worst(field)},
//			{Name: "step tmpfs", Values: step.Range(bufs[2], field, from, window), Color: chart.ColorStep, Reduce: chart.Worst(field)},
//		},
//	}
//	out := c.Render(width, height)
//
// Freezing the view (the `f` key) is the caller's: keep pushing samples into
// the live Ring, and draw from a Clone taken when the view froze until it
// thaws. The clone keeps its whole capacity, so `+` and `-` still work on a
// frozen view.
//
// Render never emits an escape code unless asked for colour, so goldens taken
// with color=false do not depend on the terminal's colour profile.
package chart
