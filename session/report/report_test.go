package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/knob"
	"github.com/perfbisect/perfbisect/session"
	"github.com/perfbisect/perfbisect/session/verdict"
)

var update = flag.Bool("update", false, "rewrite the golden files")

var t0 = time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)

func samples(n int, ops, p50 float64, wobble bool) []probe.Sample {
	out := make([]probe.Sample, n)
	for i := range out {
		f := 1.0
		if wobble {
			f = 1 + 0.05*math.Sin(float64(i))
		}
		out[i] = probe.Sample{Sec: i + 1, OpsPerS: ops * f, MiBPerS: ops * f * 4 / 1024,
			P50Ms: p50 / f, P95Ms: 2 * p50 / f, P99Ms: 3 * p50 / f, MaxMs: 10 * p50}
	}
	return out
}

// stream is a fixed walk: a reference, a reproduce step that regressed, a
// tmpfs step that cured it, a scheduler step whose revert failed.
func stream(n int) []session.Event {
	at := t0
	var evs []session.Event
	add := func(typ session.Type, step string, d any) {
		evs = append(evs, session.Event{Type: typ, Time: at, Step: step, Data: d})
		at = at.Add(time.Second)
	}
	rot := true
	add(session.TypeSession, "", &session.SessionStart{Version: "test", Playbook: "local-disk", Source: "embedded:local-disk",
		YAML: "name: local-disk\nmetric: p50_ms\n", Workload: probe.Spec{Workload: "fsync", Dir: "/var/lib/probe", BS: 4 * probe.KiB,
			FileSize: 64 * probe.MiB, Sync: probe.SyncFdatasync, Threads: 1},
		Reference: "good night.jsonl", ReferenceSamples: samples(n, 8000, 0.1, true), Host: "db-7"})
	add(session.TypeHost, "", &session.HostFacts{Hostname: "db-7", Kernel: "6.8.0", CPU: "Xeon", CPUs: 8, MemoryBytes: 32 << 30,
		Root: true, DataDir: "/var/lib/probe", MountPoint: "/var/lib", Filesystem: "ext4", MountOptions: "rw,relatime",
		Device: "nvme0n1", Scheduler: "mq-deadline", Rotational: &rot, Lab: "emulated gp3 volume vol-1"})
	type st struct {
		id, title, hyp string
		repro          bool
		knobs          []knob.Use
		ops, p50       float64
		state          session.State
		outcome        verdict.Outcome
		ratio          float64
		meaning, next  string
		concl          string
	}
	steps := []st{
		{"reproduce", "Reproduce on the current setup", "The regression shows here.", true, nil, 4000, 0.2,
			session.StateRegressed, verdict.Regressed, 2, "The regression is here.", "tmpfs", ""},
		{"tmpfs", "Data directory on tmpfs", "The disk is the bottleneck.", false, []knob.Use{{Knob: "tmpfs", With: knob.Settings{"size": "1g"}}},
			9000, 0.09, session.StateGone, verdict.Improved, 0.45, "Fast in memory: the disk is to blame.", "scheduler", ""},
		{"scheduler", "I/O scheduler none", "The scheduler delays <flushes> & more.", false, []knob.Use{{Knob: "scheduler", With: knob.Settings{"value": "none"}}},
			4100, 0.19, session.StatePersists, verdict.Same, 0.95, "The scheduler is not it.", "",
			"The disk's flush latency: check the device's write cache."},
	}
	for _, s := range steps {
		add(session.TypeStepStart, s.id, &session.StepStart{Title: s.title, Hypothesis: s.hyp, Reproduce: s.repro, Knobs: s.knobs, DurationS: float64(n)})
		for _, k := range s.knobs {
			ch := knob.Change{Knob: k.Knob, Settings: k.With, Do: []string{"apply " + k.Knob}, Undo: []string{"undo " + k.Knob}, Before: "old", After: "new"}
			add(session.TypeKnob, s.id, &session.KnobEvent{Action: session.KnobApplied, Change: ch})
		}
		for _, x := range samples(n, s.ops, s.p50, true) {
			x := x
			add(session.TypeSample, s.id, &x)
		}
		if s.id == "tmpfs" {
			add(session.TypeNote, s.id, &session.Note{Text: "tmpfs run looked *clean*"})
		}
		for _, k := range s.knobs {
			ch := knob.Change{Knob: k.Knob, Settings: k.With, Do: []string{"apply " + k.Knob}, Undo: []string{"undo " + k.Knob}, Before: "old", After: "new"}
			if k.Knob == "scheduler" {
				add(session.TypeKnob, s.id, &session.KnobEvent{Action: session.KnobRevertFailed, Change: ch, Error: "write /sys/block/nvme0n1/queue/scheduler: permission denied"})
				add(session.TypeError, s.id, &session.ErrorEvent{Message: "could not put the scheduler back", Action: "the walk stops here"})
			} else {
				add(session.TypeKnob, s.id, &session.KnobEvent{Action: session.KnobReverted, Change: ch})
			}
		}
		add(session.TypeVerdict, s.id, &session.Verdict{Against: session.AgainstReference, Verdict: verdict.Verdict{Metric: "p50_ms",
			BaseMedian: 0.1, StepMedian: s.p50, Ratio: s.p50 / 0.1, CILow: s.p50 / 0.1 * 0.9, CIHigh: s.p50 / 0.1 * 1.1, Confidence: 0.96,
			P: 0.002, NBase: n, NStep: n, Outcome: verdict.Regressed, Why: fmt.Sprintf("p50 %.2fx the reference", s.p50/0.1)}})
		if !s.repro {
			add(session.TypeVerdict, s.id, &session.Verdict{Against: session.AgainstRegression, Verdict: verdict.Verdict{Metric: "p50_ms",
				BaseMedian: 0.2, StepMedian: s.p50, Ratio: s.ratio, CILow: s.ratio * 0.9, CIHigh: s.ratio * 1.1, Confidence: 0.96,
				P: 0.01, NBase: n, NStep: n, Outcome: s.outcome, Why: fmt.Sprintf("p50 %.2fx the regression: %s", s.ratio, s.outcome)}})
		}
		add(session.TypeStepEnd, s.id, &session.StepEnd{State: s.state, Summary: &probe.Summary{DurationS: float64(n), Ops: int64(s.ops) * int64(n),
			OpsPerS: s.ops, P50Ms: s.p50, P95Ms: 2 * s.p50, P99Ms: 3 * s.p50, MaxMs: 10 * s.p50, Ended: probe.EndCompleted}, DurationS: float64(n) + 0.04})
		add(session.TypeDecision, s.id, &session.Decision{Meaning: s.meaning, Next: s.next, Conclusion: s.concl})
	}
	add(session.TypeSessionEnd, "", &session.SessionEnd{Ended: session.EndConcluded, Conclusion: steps[2].concl})
	return evs
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update to accept); got:\n%s", name, got)
	}
}

func render(t testing.TB, r *Report, f Format) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := r.Write(&b, f); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestMarkdownGolden(t *testing.T) {
	md := render(t, Build(stream(12), nil), FormatMarkdown)
	golden(t, "walk.md.golden", md)
	s := string(md)
	for _, want := range []string{"**REVERT FAILED**", "lab: emulated gp3 volume vol-1", "good night.jsonl: 12 seconds",
		"perfbisect run --no-tui --playbook local-disk --dir /var/lib/probe --reference 'good night.jsonl'",
		"| tmpfs | 0.100 ms | 0.090 ms | 0.90x | gone |", "```text"} {
		if !strings.Contains(s, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	if !strings.HasPrefix(s, "# perfbisect report: local-disk on db-7\n\n**Conclusion.** The disk") {
		t.Errorf("markdown does not open with the conclusion:\n%.200s", s)
	}
}

func TestJSONGolden(t *testing.T) {
	js := render(t, Build(stream(12), nil), FormatJSON)
	golden(t, "walk.json.golden", js)
	var v struct {
		Schema string `json:"schema"`
		Steps  []struct {
			ID       string `json:"id"`
			Verdicts []struct {
				Against string  `json:"against"`
				Ratio   float64 `json:"ratio"`
				Outcome string  `json:"outcome"`
			} `json:"verdicts"`
		} `json:"steps"`
		Conclusion string `json:"conclusion"`
		Ended      string `json:"ended"`
		CutShort   string `json:"cut_short"`
	}
	if err := json.Unmarshal(js, &v); err != nil {
		t.Fatal(err)
	}
	if v.Schema != Schema || len(v.Steps) != 3 || v.Ended != "concluded" || v.CutShort != "" || v.Conclusion == "" {
		t.Errorf("json: %+v", v)
	}
	if vs := v.Steps[1].Verdicts; len(vs) != 2 || vs[1].Against != "regression" || vs[1].Outcome != "improved" {
		t.Errorf("tmpfs verdicts: %+v", vs)
	}
}

func checkHTML(t *testing.T, h []byte, stepsWithSamples []string) {
	t.Helper()
	s := string(h)
	if strings.Contains(strings.ToLower(s), "<script") {
		t.Error("html has a script")
	}
	for _, bad := range []string{"http://", "https://", "<link", "@import", "url("} {
		if strings.Contains(s, bad) {
			t.Errorf("html refers outside itself: %q", bad)
		}
	}
	if !strings.Contains(s, "@media print") {
		t.Error("html has no print style")
	}
	d := xml.NewDecoder(bytes.NewReader(h))
	d.Strict = true
	ids := map[string]int{}
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("html is not well-formed: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			for _, a := range se.Attr {
				if a.Name.Local == "id" && strings.HasPrefix(a.Value, "chart-") {
					ids[a.Value]++
				}
				if a.Name.Local == "href" || a.Name.Local == "src" {
					t.Errorf("html has a reference: %s=%q", a.Name.Local, a.Value)
				}
			}
		}
	}
	if len(ids) != len(stepsWithSamples) {
		t.Errorf("chart elements %v, want one for each of %v", ids, stepsWithSamples)
	}
	for _, id := range stepsWithSamples {
		if ids["chart-"+id] != 1 {
			t.Errorf("chart-%s: %d elements, want 1", id, ids["chart-"+id])
		}
	}
}

func TestHTML(t *testing.T) {
	h := render(t, Build(stream(12), nil), FormatHTML)
	checkHTML(t, h, []string{"reproduce", "tmpfs", "scheduler"})
	s := string(h)
	for _, want := range []string{"REVERT FAILED", "&lt;flushes&gt; &amp; more", "<polyline", "<rect", "k-ref", "k-reg"} {
		if !strings.Contains(s, want) {
			t.Errorf("html lacks %q", want)
		}
	}
	if strings.Contains(s, "<flushes>") {
		t.Error("html does not escape text")
	}
}

func TestTornLog(t *testing.T) {
	evs := stream(6)
	var b bytes.Buffer
	for _, e := range evs[:len(evs)-20] {
		line, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	b.WriteString(`{"type":"sample","time":"2026-12-01T06:00:40Z","step":"scheduler","sec":3,"ops_per`)
	path := filepath.Join(t.TempDir(), "torn.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got, bad, err := session.ReadLogFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) != 1 || !bad[0].Torn {
		t.Fatalf("bad lines %v, want one torn", bad)
	}
	r := Build(got, bad)
	want := fmt.Sprintf("the log ends at line %d, cut short; the report covers what it holds", len(evs)-19)
	for _, f := range Formats {
		out := render(t, r, f)
		if !strings.Contains(string(out), want) {
			t.Errorf("%s lacks %q", f, want)
		}
	}
	if !strings.Contains(string(render(t, r, FormatMarkdown)), "No conclusion") {
		t.Error("an unfinished walk claims a conclusion")
	}
	var stepsWith []string
	for _, s := range r.Steps {
		if len(s.samples) > 0 {
			stepsWith = append(stepsWith, s.ID)
		}
	}
	checkHTML(t, render(t, r, FormatHTML), stepsWith)
}

func TestNoReference(t *testing.T) {
	evs := stream(6)
	ss := evs[0].Data.(*session.SessionStart)
	cp := *ss
	cp.Reference, cp.ReferenceSamples = "", nil
	evs[0].Data = &cp
	// As the runner records it: the step's reason and its decision's
	// meaning are the same sentence, which the timeline says once.
	const baseline = "no reference: this step is the baseline the others are judged against"
	for _, e := range evs {
		switch d := e.Data.(type) {
		case *session.StepEnd:
			if e.Step == "reproduce" {
				d.State, d.Reason = session.StateMeasured, baseline
			}
		case *session.Decision:
			if e.Step == "reproduce" {
				d.Meaning = baseline
			}
		}
	}
	md := string(render(t, Build(evs, nil), FormatMarkdown))
	if n := strings.Count(md, baseline); n != 1 {
		t.Errorf("the timeline says %q %d times, want once", baseline, n)
	}
	if !strings.Contains(md, "none: "+session.NoReferenceText) || !strings.Contains(md, "| step | baseline p50\\_ms |") {
		t.Errorf("no-reference report:\n%s", md)
	}
	if strings.Contains(md, "--reference") {
		t.Error("redo command names a reference")
	}
}

func TestDownsample(t *testing.T) {
	v := make([]float64, 3600)
	for i := range v {
		v[i] = float64(i % 7)
	}
	v[1234] = 100
	xs, ys := downsample(v, maxPoints)
	if len(xs) > maxPoints || len(xs) != len(ys) {
		t.Fatalf("%d points", len(xs))
	}
	found := false
	for _, y := range ys {
		found = found || y == 100
	}
	if !found {
		t.Error("downsampling lost the spike")
	}
}

func BenchmarkReport1h(b *testing.B) {
	evs := stream(3600)
	// six steps: add three more copies of the steps under other ids
	var more []session.Event
	for _, e := range evs {
		if e.Step != "" && e.Type != session.TypeSessionEnd {
			e.Step += "-again"
			if ss, ok := e.Data.(*session.StepStart); ok {
				c := *ss
				c.Reproduce = false
				e.Data = &c
			}
			more = append(more, e)
		}
	}
	evs = append(evs[:len(evs)-1:len(evs)-1], append(more, evs[len(evs)-1])...)
	b.ReportAllocs()
	for b.Loop() {
		r := Build(evs, nil)
		if len(r.Steps) != 6 {
			b.Fatalf("%d steps", len(r.Steps))
		}
		for _, f := range Formats {
			if err := r.Write(io.Discard, f); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestToolWorkload: pgbench's samples have an average latency and no
// percentiles: the charts draw the average, the summaries say only what
// was measured, and the probe's reference is left out of a latency chart
// it has no values for.
func TestToolWorkload(t *testing.T) {
	evs := stream(8)
	for _, e := range evs {
		switch d := e.Data.(type) {
		case *probe.Sample:
			*d = probe.Sample{Sec: d.Sec, OpsPerS: d.OpsPerS, AvgMs: d.P50Ms, Errors: 0, Real: probe.FieldOps | probe.FieldAvg | probe.FieldErrors}
		case *session.StepEnd:
			d.Summary = &probe.Summary{DurationS: 8, Ops: 8000, OpsPerS: 1000, AvgMs: 0.8, Real: probe.FieldOps | probe.FieldAvg | probe.FieldErrors,
				Ended: probe.EndCompleted, Server: "managed postgresql 15.18 (fsync=off)"}
		}
	}
	r := Build(evs, nil)
	md := string(render(t, r, FormatMarkdown))
	for _, want := range []string{"reproduce: avg ms per second", "1000.0 ops/s, avg 0.800 ms; server: managed postgresql 15.18 (fsync=off)"} {
		if !strings.Contains(md, strings.ReplaceAll(want, "_", `\_`)) {
			t.Errorf("Markdown lacks %q", want)
		}
	}
	if strings.Contains(md, "p99 ms per second") || strings.Contains(md, "ops/s, p50") {
		t.Errorf("Markdown shows percentiles pgbench does not measure:\n%s", md)
	}
	h := string(render(t, r, FormatHTML))
	if !strings.Contains(h, "avg latency, ms per second") || strings.Contains(h, "p99 latency") {
		t.Errorf("HTML: want the avg latency chart and no p99 chart")
	}
	// The reference (the probe's samples) has no avg: not in that chart.
	lat := h[strings.Index(h, "avg latency, ms per second"):]
	lat = lat[:strings.Index(lat, "</svg>")]
	if strings.Contains(lat, "k-ref") {
		t.Errorf("the avg latency chart draws the reference, which measured no avg")
	}
}

// TestStallsAndSpikes: a second without operations is a gap in the latency
// charts, not a 0 ms point; a one-second spike in a long run survives the
// Markdown chart's buckets; a verdict without a ratio shows "-", not 0.00x.
func TestStallsAndSpikes(t *testing.T) {
	evs := stream(900)
	stalled := false
	for _, e := range evs {
		if d, ok := e.Data.(*probe.Sample); ok && e.Step == "tmpfs" && d.Sec == 400 {
			*d = probe.Sample{Sec: d.Sec} // a stall: nothing completed
			stalled = true
		}
		if d, ok := e.Data.(*probe.Sample); ok && e.Step == "reproduce" && d.Sec == 500 {
			d.P99Ms = 500 // one awful second among 900
		}
		if d, ok := e.Data.(*session.Verdict); ok && e.Step == "scheduler" {
			d.Ratio, d.BaseMedian = 0, 0
		}
	}
	if !stalled {
		t.Fatal("no tmpfs second 400 in the fixture")
	}
	r := Build(evs, nil)
	// Not downsampled (at most 600 points), the stall is a gap.
	short := stream(300)
	for _, e := range short {
		if d, ok := e.Data.(*probe.Sample); ok && e.Step == "tmpfs" && d.Sec == 100 {
			*d = probe.Sample{Sec: d.Sec}
		}
	}
	h := string(render(t, Build(short, nil), FormatHTML))
	tmpfs := h[strings.Index(h, `id="chart-tmpfs"`):]
	lat := tmpfs[strings.Index(tmpfs, "p99 latency"):]
	lat = lat[:strings.Index(lat, "</svg>")]
	if n := strings.Count(lat, `class="k-step"`); n != 2 {
		t.Errorf("tmpfs's latency line is in %d pieces, want 2 (a gap at the stall)", n)
	}
	md := string(render(t, r, FormatMarkdown))
	repro := md[strings.Index(md, "reproduce: ops/s per second"):]
	repro = repro[:strings.Index(repro, "reproduce: p99 ms per second")]
	if !strings.Contains(repro, "500") {
		t.Errorf("the Markdown p99 chart of reproduce lost its 500 ms second:\n%s", repro)
	}
	if row := lineOf(md, "| scheduler |"); !strings.Contains(row, "| - |") || strings.Contains(row, "0.00x") {
		t.Errorf("scheduler row %q: want '-' for a verdict without a ratio", row)
	}
}

func lineOf(s, prefix string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}
