package hosttest

import (
	"context"
	"fmt"
	"sync"

	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/host"
	"github.com/perfbisect/perfbisect/probe/knob"
)

// Fake is a scripted host.Host: what each knob plans, applies and puts
// back, and what each run measures, are what the test says, so that every
// path of a walk (a cancel, a panic, a revert that fails) runs in
// milliseconds without root. It records what it was asked, in order, as
// "plan tmpfs", "apply tmpfs", "revert tmpfs", "run".
type Fake struct {
	HostFacts host.Facts
	// Knobs script each knob by name; a knob not in it is unavailable.
	Knobs map[string]FakeKnob
	// Runs are handed out one per Run call, in order; past the last, Run
	// fails.
	Runs []FakeRun

	mu    sync.Mutex
	calls []string
	next  int
}

// FakeKnob is what one knob does on a Fake.
type FakeKnob struct {
	Change    knob.Change
	PlanErr   error // from Plan (a *knob.Unavailable makes it unavailable)
	ApplyErr  error // from Apply; nothing is applied
	RevertErr error // from every call of its revert
	// Workload is the spec the step runs with once it is applied; nil
	// keeps the spec as it was.
	Workload func(probe.Spec) probe.Spec
}

// FakeRun is one run of a workload on a Fake.
type FakeRun struct {
	StartErr error          // Run fails: nothing was measured
	Samples  []probe.Sample // sent one after the other, as fast as read
	Err      error          // from Wait, after the samples
	// Hold keeps the run going after its samples until it is cancelled,
	// as a real workload runs until the runner stops it.
	Hold bool
	// Then is called after each sample is taken, with its second: a test
	// cancels a step there, or panics.
	Then func(sec int)
}

var _ host.Host = (*Fake)(nil)

func (f *Fake) record(call string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, call)
}

// Calls lists what the host was asked, in order.
func (f *Fake) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *Fake) Name() string { return "fake" }

func (f *Fake) Facts(context.Context, string) (host.Facts, error) { return f.HostFacts, nil }

func (f *Fake) knob(use knob.Use) (FakeKnob, error) {
	k, ok := f.Knobs[use.Knob]
	if !ok {
		return k, &knob.Unavailable{Knob: use.Knob, Reason: "not scripted on the fake host"}
	}
	if k.Change.Knob == "" {
		k.Change.Knob, k.Change.Settings = use.Knob, use.With
	}
	return k, nil
}

func (f *Fake) Plan(_ context.Context, use knob.Use, _ probe.Spec, _ knob.Operator) (knob.Change, error) {
	f.record("plan " + use.Knob)
	k, err := f.knob(use)
	if err == nil {
		err = k.PlanErr
	}
	return k.Change, err
}

func (f *Fake) Apply(_ context.Context, use knob.Use, w probe.Spec, _ knob.Operator) (probe.Spec, knob.Change, knob.Revert, error) {
	f.record("apply " + use.Knob)
	k, err := f.knob(use)
	if err == nil {
		err = k.ApplyErr
	}
	if err != nil {
		return w, k.Change, nil, err
	}
	if k.Workload != nil {
		w = k.Workload(w)
	}
	revert := func(context.Context) error {
		f.record("revert " + use.Knob)
		return k.RevertErr
	}
	return w, k.Change, revert, nil
}

func (f *Fake) Run(ctx context.Context, w probe.Spec) (host.Run, error) {
	f.record("run")
	f.mu.Lock()
	i := f.next
	f.next++
	f.mu.Unlock()
	if i >= len(f.Runs) {
		return nil, fmt.Errorf("fake host: no run %d scripted", i+1)
	}
	r := f.Runs[i]
	if r.StartErr != nil {
		return nil, r.StartErr
	}
	run := &fakeRun{samples: make(chan probe.Sample), done: make(chan struct{}), spec: w}
	go run.play(ctx, r)
	return run, nil
}

type fakeRun struct {
	samples chan probe.Sample
	done    chan struct{}
	spec    probe.Spec
	sum     probe.Summary
	err     error
}

func (r *fakeRun) play(ctx context.Context, script FakeRun) {
	defer close(r.done)
	defer close(r.samples)
	r.sum = probe.Summary{Workload: r.spec, Ended: probe.EndCompleted}
	for _, s := range script.Samples {
		select {
		case r.samples <- s:
		case <-ctx.Done():
			r.sum.Ended = probe.EndInterrupted
			return
		}
		r.sum.DurationS++
		r.sum.Ops += int64(s.OpsPerS)
		if script.Then != nil {
			script.Then(s.Sec)
		}
	}
	if script.Hold {
		<-ctx.Done()
		r.sum.Ended = probe.EndInterrupted
		return
	}
	r.err = script.Err
}

func (r *fakeRun) Samples() <-chan probe.Sample { return r.samples }

func (r *fakeRun) Wait() (probe.Summary, error) {
	<-r.done
	return r.sum, r.err
}

// Seconds are n seconds of a run whose median latency is p50 ms, wobbling
// a little so that the verdicts see a spread, as a real run has.
func Seconds(n int, p50 float64) []probe.Sample {
	out := make([]probe.Sample, n)
	for i := range out {
		f := 1 + float64(i%5)/50
		out[i] = probe.Sample{Sec: i + 1, OpsPerS: 1000 / (p50 * f), MiBPerS: 1000 / (p50 * f) * 4 / 1024,
			P50Ms: p50 * f, P95Ms: 1.5 * p50 * f, P99Ms: 2 * p50 * f, MaxMs: 4 * p50 * f}
	}
	return out
}
