package session

import (
	"math/rand/v2"
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
		"reproduce, no reference: the baseline": {true, nil, nil, run(1, 20, slow), StateMeasured, playbook.Persists, 0},
		"reproduce slower than the reference":   {true, run(2, 20, good), nil, run(3, 20, slow), StateRegressed, playbook.Persists, 1},
		"reproduce as fast as the reference":    {true, run(4, 20, good), nil, run(5, 20, good), StateSame, playbook.Gone, 1},
		"reproduce faster than the reference":   {true, run(6, 20, good), nil, run(7, 20, good/2), StateSame, playbook.Gone, 1},
		"reproduce too short to tell":           {true, run(8, 20, good), nil, run(9, 4, slow), StateInconclusive, playbook.Unavailable, 1},
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
