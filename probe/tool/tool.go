// Package tool owns the workloads that run another program and read its
// per-second output live: sysbench and pgbench against a database server
// (a throwaway one it starts with probe/db, or an existing one), fio, and
// any command with a pattern. Each follows probe.Workload as the built-in
// fsync probe does: Run prepares synchronously, then streams one
// probe.Sample per second; Result is the summary once the channel closes.
// Every program runs in its own process group, dies with perfbisect, and is
// stopped with SIGINT (then SIGTERM, then SIGKILL) when the run is cancelled.
package tool

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/parse"
)

// New returns the workload spec describes: the built-in fsync probe
// (probe.NewFsync) or a tool. It checks the spec, not the programs: call
// Require for those.
func New(spec probe.Spec) (probe.Workload, error) {
	if spec.Workload == probe.WorkloadFsync {
		return probe.NewFsync(spec)
	}
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	var j job
	var err error
	switch spec.Workload {
	case probe.WorkloadSysbench:
		j, err = newSysbench(spec)
	case probe.WorkloadPgbench:
		j, err = newPgbench(spec)
	case probe.WorkloadFio:
		j, err = newFio(spec)
	case probe.WorkloadCommand:
		j, err = newCommand(spec)
	default:
		err = fmt.Errorf("workload %q: want one of %v", spec.Workload, probe.Workloads)
	}
	if err != nil {
		return nil, err
	}
	return &workload{spec: spec, job: j}, nil
}

// job is what differs between tools.
type job interface {
	// prepare gets everything ready to measure (a database server, tables,
	// a directory). When it fails, cleanup is still called.
	prepare(ctx context.Context) error
	// run is the measured program, and how to read it.
	run() (run, error)
	// cleanup undoes what prepare did, as far as it got; it runs once,
	// after the run or a failed prepare, even when the run was cancelled.
	cleanup(ctx context.Context) error
	// spec is the spec as it ran (its directory made absolute).
	spec() probe.Spec
}

// run is the measured program of a job.
type run struct {
	name string // "fio", "sysbench oltp_insert"
	invocation
	stream *parse.Stream
	// fromStdout and fromStderr say which outputs the stream reads.
	fromStdout, fromStderr bool
	// ownLimit: the program ends by itself after the spec's duration (it
	// is stopped if it overruns much); otherwise it is stopped then.
	ownLimit bool
	// quoteStdout: its stdout is worth quoting in an error (sysbench's
	// FATAL lines are there); fio's is JSON.
	quoteStdout bool
}

// Slack for a program with its own time limit: before its first report
// (connecting, fio laying out its files), and after its last.
const (
	startSlack = 60 * time.Second
	endSlack   = 10 * time.Second
	// cleanupTimeout bounds the cleanup after a run (a server's shutdown
	// takes up to 30 s before it is killed).
	cleanupTimeout = 90 * time.Second
)

type workload struct {
	spec probe.Spec
	job  job

	ran    bool
	result probe.Summary // set before the sample channel is closed
}

// Run prepares the tool (an error here means nothing was measured, and what
// the preparation started is already stopped and removed), starts it, and
// sends one Sample per second as it prints them. The channel is closed when
// the tool ends, ctx is cancelled or the tool fails, after the cleanup; the
// caller must drain it, and may then read Result.
func (w *workload) Run(ctx context.Context) (<-chan probe.Sample, error) {
	if w.ran {
		return nil, errors.New("a workload runs once: make another with tool.New")
	}
	w.ran = true
	fail := func(err error) (<-chan probe.Sample, error) {
		return nil, errors.Join(err, w.cleanup(ctx))
	}
	if err := w.job.prepare(ctx); err != nil {
		return fail(err)
	}
	server := ""
	if d, ok := w.job.(interface{ describe() string }); ok {
		server = d.describe() // now, while the server runs
	}
	r, err := w.job.run()
	if err != nil {
		return fail(err)
	}
	p, err := start(r.name, r.invocation)
	if err != nil {
		return fail(err)
	}
	out := make(chan probe.Sample, 16)
	go func() {
		defer close(out)
		w.result = w.measure(ctx, p, r, out)
		w.result.Server = server
		if err := w.cleanup(ctx); err != nil {
			if w.result.Error == "" {
				w.result.Error = err.Error()
			} else {
				w.result.Error += "; " + err.Error()
			}
		}
	}()
	return out, nil
}

// Result is the summary of the run; valid once the sample channel is closed.
func (w *workload) Result() probe.Summary { return w.result }

func (w *workload) cleanup(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	return w.job.cleanup(ctx)
}

// measure reads the tool's output until it ends, sending each sample.
func (w *workload) measure(ctx context.Context, p *proc, r run, out chan<- probe.Sample) probe.Summary {
	duration := w.spec.Duration.Std()
	limit := time.NewTimer(duration)
	if r.ownLimit {
		limit.Reset(duration + startSlack)
	}
	defer limit.Stop()
	var acc probe.Tally
	said := newOutput()
	interrupted, ended := p.pump(ctx, limit.C, func(l outLine) {
		var ss []probe.Sample
		if l.stderr && r.fromStderr || !l.stderr && r.fromStdout {
			ss = r.stream.Line(l.text)
		}
		if len(ss) == 0 {
			said.add(l)
		}
		for _, s := range ss {
			if acc.Seconds() == 0 && r.ownLimit {
				// Its clock started a second before its first report.
				limit.Reset(duration - time.Second + endSlack)
			}
			acc.Add(s)
			out <- s
		}
	})

	res := r.stream.Result()
	sum := summary(&acc, res.Summary)
	sum.Workload = w.job.spec()
	cut := ""
	if acc.Seconds() > 0 {
		cut = fmt.Sprintf("; the run was cut short after %d s", acc.Seconds())
	}
	switch {
	case interrupted:
		sum.Ended = probe.EndInterrupted
		sum.Error = "interrupted: the summary covers the seconds measured before the stop"
	case p.err != nil && !ended:
		sum.Ended = probe.EndFailed
		sum.Error = fmt.Sprintf("%s failed (%s)%s%s", r.name, exitText(p.err), said.quote(r.quoteStdout), cut)
	case acc.Seconds() == 0:
		sum.Ended = probe.EndFailed
		sum.Error = fmt.Sprintf("%s gave no per-second report%s", r.name, said.quote(r.quoteStdout))
		if len(res.Bad) > 0 {
			sum.Error += fmt.Sprintf(" (%d lines it printed could not be read, the first: %v)", len(res.Bad), res.Bad[0])
		}
	case res.Summary != nil && res.Summary.Ended == probe.EndFailed:
		sum.Ended = probe.EndFailed
		sum.Error = res.Summary.Error + said.quote(r.quoteStdout)
	default:
		sum.Ended = probe.EndCompleted
	}
	return sum
}

// summary is the run's summary: throughput and errors from the samples
// sent (each one second), latencies only from the tool's own final report,
// over every operation, never from per-second values.
func summary(t *probe.Tally, final *probe.Summary) probe.Summary {
	s := t.Throughput()
	// Real is never empty, which would mean the fsync probe's fields: a
	// tool's run always says its operations, 0 when it printed none.
	s.Real |= probe.FieldOps
	if t.Seconds() == 0 || final == nil {
		return s
	}
	lat := final.Real & (probe.FieldP50 | probe.FieldP95 | probe.FieldP99 | probe.FieldMax | probe.FieldAvg)
	s.Real |= lat
	get := func(f probe.Field, v float64) float64 {
		if lat.Has(f) {
			return v
		}
		return 0
	}
	s.P50Ms = get(probe.FieldP50, final.P50Ms)
	s.P95Ms = get(probe.FieldP95, final.P95Ms)
	s.P99Ms = get(probe.FieldP99, final.P99Ms)
	s.MaxMs = get(probe.FieldMax, final.MaxMs)
	s.AvgMs = get(probe.FieldAvg, final.AvgMs)
	return s
}
