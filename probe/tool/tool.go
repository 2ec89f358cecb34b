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

	"github.com/perfbisect/perfbisect/internal/proc"
	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/parse"
)

// New returns the workload spec describes: the built-in fsync probe
// (probe.NewFsync) or a tool. It checks the spec, not the programs: call
// Require for those.
func New(spec probe.Spec) (probe.Workload, error) { return NewWith(spec, proc.Real{}) }

// NewWith is New with the runner that starts the tool's programs (a fake
// in tests; a managed database server is always real).
func NewWith(spec probe.Spec, r proc.Runner) (probe.Workload, error) {
	if spec.Workload == probe.WorkloadFsync {
		return probe.NewFsync(spec)
	}
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	var j job
	var err error
	run := programs{proc.Or(r)}
	switch spec.Workload {
	case probe.WorkloadSysbench:
		j, err = newSysbench(spec, run)
	case probe.WorkloadPgbench:
		j, err = newPgbench(spec, run)
	case probe.WorkloadFio:
		j, err = newFio(spec, run)
	case probe.WorkloadCommand:
		j, err = newCommand(spec, run)
	default:
		err = fmt.Errorf("workload %q: want one of %v", spec.Workload, probe.Workloads)
	}
	if err != nil {
		return nil, err
	}
	return &workload{spec: spec, job: j}, nil
}

// job is what differs between tools. Each embeds the programs its steps
// run with, and the measured program is started with them too (start), so
// the runner is held in one place.
type job interface {
	// start starts the measured program (programs.start).
	start(ctx context.Context, c proc.Cmd) (proc.Process, error)
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

// reading is r with the stream that reads format, its program's output.
func (r run) reading(format string) (run, error) {
	s, err := parse.NewStream(format)
	if err != nil {
		return run{}, err
	}
	r.stream = s
	return r, nil
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
	// The lines come to measure, which reads them until the program has
	// exited: every call of Line has returned by then.
	lines := make(chan proc.Line, 64)
	c := r.cmd(r.name)
	c.Line = func(l proc.Line) { lines <- l }
	p, err := w.job.start(ctx, c)
	if err != nil {
		return fail(err)
	}
	out := make(chan probe.Sample, 16)
	go func() {
		defer close(out)
		w.result = w.measure(ctx, p, lines, r, out)
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
func (w *workload) measure(ctx context.Context, p proc.Process, lines <-chan proc.Line, r run, out chan<- probe.Sample) probe.Summary {
	duration := w.spec.Duration.Std()
	limit := time.NewTimer(duration)
	if r.ownLimit {
		limit.Reset(duration + startSlack)
	}
	defer limit.Stop()
	var acc probe.Totals
	said := proc.NewOutput(tailLines)
	from := proc.StderrOnly
	if r.quoteStdout {
		from = proc.StderrOrStdout
	}
	read := func(l proc.Line) {
		var ss []probe.Sample
		if l.Stderr && r.fromStderr || !l.Stderr && r.fromStdout {
			ss = r.stream.Line(l.Text)
		}
		if len(ss) == 0 {
			said.Add(l)
		}
		for _, s := range ss {
			if acc.Seconds() == 0 && r.ownLimit {
				// Its clock started a second before its first report.
				limit.Reset(duration - time.Second + endSlack)
			}
			acc.Add(s)
			out <- s
		}
	}
	var interrupted, ended bool
	done, expired := ctx.Done(), limit.C
	for running := true; running; {
		select {
		case l := <-lines:
			read(l)
		case <-p.Done():
			running = false
		case <-done: // the runner stops it
			done, interrupted = nil, true
		case <-expired:
			expired, ended = nil, true
			go p.Stop(context.Background())
		}
	}
	for drained := false; !drained; {
		select {
		case l := <-lines:
			read(l)
		default:
			drained = true
		}
	}
	werr := p.Wait()
	var ee *proc.ExitError
	interrupted = interrupted || errors.As(werr, &ee) && ee.Interrupted

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
	case werr != nil && !ended:
		sum.Ended = probe.EndFailed
		sum.Error = requote(werr, said.Said(from)) + cut
	case acc.Seconds() == 0:
		sum.Ended = probe.EndFailed
		sum.Error = fmt.Sprintf("%s gave no per-second report%s", r.name, proc.Quote(said.Said(from)))
		if len(res.Bad) > 0 {
			sum.Error += fmt.Sprintf(" (%d lines it printed could not be read, the first: %v)", len(res.Bad), res.Bad[0])
		}
	case res.Summary != nil && res.Summary.Ended == probe.EndFailed:
		sum.Ended = probe.EndFailed
		sum.Error = res.Summary.Error + proc.Quote(said.Said(from))
	default:
		sum.Ended = probe.EndCompleted
	}
	return sum
}

// summary is the run's summary: throughput and errors from the samples
// sent (each one second), latencies only from the tool's own final report,
// over every operation, never from per-second values.
func summary(t *probe.Totals, final *probe.Summary) probe.Summary {
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
