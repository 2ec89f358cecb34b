package session

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/session/playbook"
	"github.com/perfbisect/perfbisect/session/verdict"
)

// run makes n seconds whose p50 is median, with a few percent of jitter.
func run(seed uint64, n int, median float64) []probe.Sample {
	r := rand.New(rand.NewPCG(seed, 7))
	out := make([]probe.Sample, n)
	for i := range out {
		p50 := median * (1 + 0.04*(r.Float64()-0.5))
		out[i] = probe.Sample{Sec: i + 1, OpsPerS: 1 / p50 * 1000, P50Ms: p50, P95Ms: p50 * 1.2, P99Ms: p50 * 1.5, MaxMs: p50 * 3}
	}
	return out
}

func TestJudgeDecisionTable(t *testing.T) {
	const good, slow = 0.1, 0.3 // ms: the reference, and the regression at 3x
	opt := verdict.Options{Metric: "p50_ms", Threshold: 0.10}
	uu := map[string]struct {
		reproduce    bool
		ref, repro   []probe.Sample
		step         []probe.Sample
		state        State
		outcome      playbook.Outcome
		verdictCount int
	}{
		// The reproduce step is judged on p50, ops/s, p99 and max.
		"reproduce, no reference: the baseline": {true, nil, nil, run(1, 20, slow), StateMeasured, playbook.Persists, 0},
		"reproduce slower than the reference":   {true, run(2, 20, good), nil, run(3, 20, slow), StateRegressed, playbook.Persists, 4},
		"reproduce as fast as the reference":    {true, run(4, 20, good), nil, run(5, 20, good), StateSame, playbook.Gone, 4},
		"reproduce faster than the reference":   {true, run(6, 20, good), nil, run(7, 20, good/2), StateSame, playbook.Gone, 4},
		"reproduce too short to tell":           {true, run(8, 20, good), nil, run(9, 4, slow), StateInconclusive, playbook.Unavailable, 4},
		"step back to the reference":            {false, run(10, 20, good), run(11, 20, slow), run(12, 20, good), StateGone, playbook.Gone, 2},
		"step better than the reference":        {false, run(13, 20, good), run(14, 20, slow), run(15, 20, good/3), StateGone, playbook.Gone, 2},
		"step as slow as the regression":        {false, run(16, 20, good), run(17, 20, slow), run(18, 20, slow), StatePersists, playbook.Persists, 2},
		"step slower still":                     {false, run(19, 20, good), run(20, 20, slow), run(21, 20, slow*2), StatePersists, playbook.Persists, 2},
		"step halfway: better, not good":        {false, run(22, 20, good), run(23, 20, slow), run(24, 20, 0.2), StatePersists, playbook.Persists, 2},
		"no reference: step faster":             {false, nil, run(25, 20, slow), run(26, 20, good), StateGone, playbook.Gone, 1},
		"no reference: step the same":           {false, nil, run(27, 20, slow), run(28, 20, slow), StatePersists, playbook.Persists, 1},
		"no reference: step too short":          {false, nil, run(29, 20, slow), run(30, 3, good), StateInconclusive, playbook.Unavailable, 1},
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) {
			j, err := judge(u.reproduce, u.ref, u.repro, u.step, opt, 0)
			if err != nil {
				t.Fatal(err)
			}
			if j.state != u.state || j.state.Outcome() != u.outcome {
				t.Errorf("state %s, outcome %s; want %s, %s (verdicts %+v)", j.state, j.state.Outcome(), u.state, u.outcome, j.verdicts)
			}
			if len(j.verdicts) != u.verdictCount {
				t.Errorf("%d verdicts, want %d", len(j.verdicts), u.verdictCount)
			}
			for _, v := range j.verdicts {
				if v.Why == "" {
					t.Errorf("a verdict without its reason: %+v", v)
				}
			}
		})
	}
}

func TestJudgeTrimsTheWarmUp(t *testing.T) {
	// The first two seconds are 10x slower (a cold cache): with the warm-up
	// trimmed, the step is as fast as the reference.
	ref := run(40, 12, 0.1)
	step := run(41, 12, 0.1)
	step[0].P50Ms, step[1].P50Ms = 1, 1
	j, err := judge(true, ref, nil, step, verdict.Options{Metric: "p50_ms"}, probe.Duration(2e9))
	if err != nil || j.state != StateSame {
		t.Errorf("with a 2s warm-up: %s %v (verdicts %+v)", j.state, err, j.verdicts)
	}
	if v := j.verdicts[0]; v.NBase != 10 || v.NStep != 10 {
		t.Errorf("n=%d+%d, want 10+10 after the warm-up", v.NBase, v.NStep)
	}
}

// TestJudgeWithoutABaseline: a step run before the reproduce step, with no
// reference, has nothing to be judged against, and says so.
func TestJudgeWithoutABaseline(t *testing.T) {
	j, err := judge(false, nil, nil, run(3, 10, 1), verdict.Options{Metric: "p50_ms"}, 0)
	if err != nil || j.state != StateInconclusive || len(j.verdicts) != 0 || !strings.Contains(j.note, "nothing to judge against") {
		t.Errorf("judge with no baseline: %s, %d verdicts, note %q, %v", j.state, len(j.verdicts), j.note, err)
	}
}

func TestJudgeUnknownMetric(t *testing.T) {
	if _, err := judge(true, run(1, 10, 1), nil, run(2, 10, 1), verdict.Options{Metric: "iops"}, 0); err == nil {
		t.Error("judged an unknown metric")
	}
}

// A pgbench step has no p50: it is judged on its average latency, against
// a pgbench regression, and every verdict says so.
func TestJudgeOnWhatWasMeasured(t *testing.T) {
	pg := func(seed uint64, avg float64) []probe.Sample {
		ss := run(seed, 10, avg)
		for i := range ss {
			ss[i] = probe.Sample{Sec: ss[i].Sec, OpsPerS: ss[i].OpsPerS, AvgMs: ss[i].P50Ms, Real: probe.FieldOps | probe.FieldAvg}
		}
		return ss
	}
	j, err := judge(false, nil, pg(1, 2), pg(2, 1), verdict.Options{Metric: "p50_ms"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(j.verdicts) != 1 {
		t.Fatalf("%d verdicts, want 1 (against the regression)", len(j.verdicts))
	}
	v := j.verdicts[0]
	if v.Metric != "avg_ms" || !strings.HasPrefix(v.Why, "judged on avg_ms: the workload does not measure p50_ms") || v.Outcome != verdict.Improved {
		t.Errorf("verdict %+v; want improved on avg_ms, saying why", v.Verdict)
	}
}

// TestDecideStep is every combination of a later step's two verdicts:
// against the reference (none, or each outcome) and against the regression.
func TestDecideStep(t *testing.T) {
	const (
		R, S, I, X = verdict.Regressed, verdict.Same, verdict.Improved, verdict.Inconclusive
		none       = verdict.Outcome("")
	)
	want := map[verdict.Outcome]map[verdict.Outcome]State{
		none: {R: StatePersists, S: StatePersists, I: StateGone, X: StateInconclusive},
		// Decisively worse than the reference: the regression is there,
		// whatever the step is against the regression.
		R: {R: StatePersists, S: StatePersists, I: StatePersists, X: StatePersists},
		// As good as the reference: gone, unless the step is also no
		// better than the regression (the two runs too close to side with).
		S: {R: StateInconclusive, S: StateInconclusive, I: StateGone, X: StateGone},
		I: {R: StateInconclusive, S: StateInconclusive, I: StateGone, X: StateGone},
		// Not known against the reference: the regression's verdict decides.
		X: {R: StatePersists, S: StatePersists, I: StateGone, X: StateInconclusive},
	}
	ratio := map[verdict.Outcome]float64{R: 3, S: 1, I: 0.3, X: 1.2}
	n := 0
	for ref, row := range want {
		for repro, state := range row {
			n++
			var vsRef *verdict.Verdict
			if ref != none {
				vsRef = &verdict.Verdict{Outcome: ref, Ratio: ratio[ref]}
			}
			vsRepro := &verdict.Verdict{Outcome: repro, Ratio: ratio[repro]}
			got, note := decideStep(vsRef, vsRepro)
			if got != state {
				t.Errorf("reference %q, regression %q: %s, want %s", ref, repro, got, state)
			}
			partial := ref == R && repro == I
			if partial != strings.Contains(note, "better than the regression (0.30x) but still slower than the reference (3.00x)") {
				t.Errorf("reference %q, regression %q: note %q", ref, repro, note)
			}
			if got == StateInconclusive && !strings.HasPrefix(note, "not known") {
				t.Errorf("reference %q, regression %q: inconclusive without saying why: %q", ref, repro, note)
			}
		}
	}
	if n != 20 {
		t.Errorf("%d combinations, want 5x4", n)
	}
}

// throttled is a device held to a few hundred write IOPS: the writes that
// get through are as fast as ever (p50 unchanged), but the throughput
// falls and the tail stretches to the throttle's stalls.
func throttled(seed uint64, n int, ops, p50, p99 float64) []probe.Sample {
	r := rand.New(rand.NewPCG(seed, 11))
	out := make([]probe.Sample, n)
	for i := range out {
		j := func() float64 { return 1 + 0.06*(r.Float64()-0.5) }
		out[i] = probe.Sample{Sec: i + 1, OpsPerS: ops * j(), MiBPerS: ops * j() / 256, P50Ms: p50 * j(),
			P95Ms: p99 * 0.6 * j(), P99Ms: p99 * j(), MaxMs: p99 * 2 * j()}
	}
	return out
}

// The seen case: 75 ops/s against 1,035, the tail 40x, p50 the same. The
// reproduce step is regressed on throughput and the tail, says that p50 did
// not, and hands the later steps the clearest of them.
func TestJudgeReproduceOnEveryMetric(t *testing.T) {
	ref, step := throttled(1, 20, 1035, 0.5, 2.3), throttled(2, 20, 75, 0.5, 94)
	j, err := judge(true, ref, nil, step, verdict.Options{Metric: "p50_ms"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if j.state != StateRegressed {
		t.Fatalf("state %s, want regressed (note %q)", j.state, j.note)
	}
	var metrics []string
	for _, v := range j.verdicts {
		metrics = append(metrics, v.Metric)
		if v.Against != AgainstReference {
			t.Errorf("verdict against %s", v.Against)
		}
	}
	if want := []string{"p99_ms", "p50_ms", "ops_per_s", "max_ms"}; !slices.Equal(metrics, want) {
		t.Errorf("verdicts on %v, want %v: the clearest first, then the rest in the family's order", metrics, want)
	}
	if j.judgedOn != "p99_ms" {
		t.Errorf("judged on %q, want p99_ms (40x, clearer than ops/s 0.07x)", j.judgedOn)
	}
	for _, s := range []string{"regressed on ops/s 0.07x, p99 41", "max 4", "not on p50 ", "(same)", "the later steps are judged on p99_ms", "the playbook's p50_ms did not regress"} {
		if !strings.Contains(j.note, s) {
			t.Errorf("note %q lacks %q", j.note, s)
		}
	}
	// Every verdict of the family is at the family-wise level.
	for _, v := range j.verdicts {
		if v.HasCI() && v.Confidence < 1-0.05/4 {
			t.Errorf("%s: interval at %.4f, want at least %.4f for 4 metrics", v.Metric, v.Confidence, 1-0.05/4)
		}
	}
}

// The playbook's metric is the one the later steps are judged on whenever
// it regressed, even when another regressed more.
func TestJudgeReproducePlaybookMetricFirst(t *testing.T) {
	ref, step := throttled(3, 20, 1000, 0.5, 2), throttled(4, 20, 500, 1.5, 80)
	j, err := judge(true, ref, nil, step, verdict.Options{Metric: "p50_ms"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if j.state != StateRegressed || j.judgedOn != "p50_ms" || j.verdicts[0].Metric != "p50_ms" {
		t.Errorf("state %s, judged on %q, first verdict on %s; want regressed on p50_ms", j.state, j.judgedOn, j.verdicts[0].Metric)
	}
	if strings.Contains(j.note, "did not regress") {
		t.Errorf("note %q", j.note)
	}
}

// Two runs of the same setup: no metric is a regression, and the note says
// what each metric found.
func TestJudgeReproduceSameOnEveryMetric(t *testing.T) {
	j, err := judge(true, throttled(5, 20, 1000, 0.5, 2), nil, throttled(6, 20, 1000, 0.5, 2), verdict.Options{Metric: "p50_ms"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if j.state != StateSame || j.judgedOn != "" || len(j.verdicts) != 4 || !strings.HasPrefix(j.note, "no metric regressed: not on p50 ") {
		t.Errorf("state %s, judged on %q, %d verdicts, note %q", j.state, j.judgedOn, len(j.verdicts), j.note)
	}
}
