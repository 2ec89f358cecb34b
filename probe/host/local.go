package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/perfbisect/perfbisect/internal/jsonl"
	"github.com/perfbisect/perfbisect/internal/proc"
	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/journal"
	"github.com/perfbisect/perfbisect/probe/knob"
	"github.com/perfbisect/perfbisect/probe/lab"
)

// Local is the machine perfbisect runs on.
type Local struct {
	// Env is where knobs keep what they create.
	Env knob.Env
	// Agent is the program that serves as `perfbisect agent` (its path,
	// arguments and environment); a zero Path means this executable with
	// the argument agent.
	Agent proc.Cmd
	// Journal records how to undo every knob before it changes the host,
	// and forgets it once put back (see probe/journal); nil records nothing.
	Journal *journal.Journal
}

// NewLocal returns the local host with its state directory chosen.
func NewLocal() *Local {
	root := os.Geteuid() == 0
	return &Local{Env: knob.Env{StateDir: knob.DefaultStateDir(root), Root: root, Lab: labVolume{}}}
}

func (l *Local) Name() string {
	h, err := os.Hostname()
	if err != nil {
		return "localhost"
	}
	return h
}

func (l *Local) Facts(ctx context.Context, dataDir string) (Facts, error) {
	f, err := localFacts(dataDir)
	if st, ok := (labVolume{}).load(); ok && err == nil && st.Contains(f.DataDir) {
		f.Lab = "EMULATED EBS volume (perfbisect lab): " + st.Describe()
		m := st.Model
		f.Volume = &Volume{Type: m.Type, SizeGiB: m.SizeGiB, IOPS: m.Baseline(), BurstIOPS: m.Burst(), ThroughputMiB: m.ThroughputMiB, Emulated: true, Speed: st.Speed()}
	}
	return f, err
}

func (l *Local) Plan(ctx context.Context, use knob.Use, w probe.Spec, op knob.Operator) (knob.Change, error) {
	k, err := knob.New(use.Knob, use.With)
	if err != nil {
		return knob.Change{}, err
	}
	env := l.Env // changes nothing: a dry run makes no directory either
	env.Operator = op
	return k.Plan(ctx, env, w)
}

func (l *Local) Apply(ctx context.Context, use knob.Use, w probe.Spec, op knob.Operator) (probe.Spec, knob.Change, knob.Revert, error) {
	k, err := knob.New(use.Knob, use.With)
	if err != nil {
		return w, knob.Change{}, nil, err
	}
	env := l.Env // a knob creates the state directory when it needs it (tmpfs)
	env.Operator = op
	// The one place a change is journaled: the knob says how to undo it
	// before making it, and the entry goes once it is put back. A failed
	// Apply has undone what it did, so its entry goes too.
	entry := l.Journal.Pending(journal.StepOf(ctx), use.Knob)
	env.Journal = entry
	next, ch, revert, err := k.Apply(ctx, env, w)
	if err != nil {
		return next, ch, revert, errors.Join(err, entry.Done())
	}
	ch.Journal = entry.File()
	return next, ch, func(ctx context.Context) error {
		if err := revert(ctx); err != nil {
			return err // still applied: the entry stays for recover
		}
		return entry.Done()
	}, nil
}

// Run starts the workload in a child `perfbisect agent`, so a crash or a
// full disk in the workload ends its run, not the investigation.
func (l *Local) Run(ctx context.Context, w probe.Spec) (Run, error) {
	if err := w.Validate(); err != nil {
		return nil, err
	}
	c, err := l.agentCmd()
	if err != nil {
		return nil, err
	}
	req, err := json.Marshal(Request{Type: "run", Workload: w})
	if err != nil {
		return nil, err
	}
	// Its stdout is the stream of samples, read a line at a time as it
	// comes; its stderr is kept for the error it ends with.
	r := &agentRun{samples: make(chan probe.Sample, 16)}
	c.Line = func(line proc.Line) {
		if !line.Stderr {
			r.record(line.Text)
		}
	}
	p, err := proc.Or(l.Env.Runner).Start(ctx, c)
	if err != nil {
		return nil, fmt.Errorf("the workload agent %s: %v", c.Path, err)
	}
	fail := func(err error) (Run, error) {
		p.Kill()
		p.Wait()
		return nil, err
	}
	// On the lab's emulated volume, the workload's I/O goes through the
	// lab's throttled cgroup. The agent waits for its request, so nothing
	// is written before it is there. A lab whose state cannot be read is
	// an error: taken for none, the volume would be measured unthrottled.
	if _, err := lab.EnterIfOn(w.Dir, p.Pid()); err != nil {
		return fail(fmt.Errorf("put the workload on the lab's volume: %v", err))
	}
	if _, err := p.Stdin().Write(append(req, '\n')); err != nil {
		return fail(fmt.Errorf("send the workload to the agent: %v%s", err, proc.Quote(p.Output().Said(proc.StderrOnly))))
	}
	go r.end(p)
	// The agent prepares (creates and preallocates its files) before the
	// first second; a failure there comes back as an exit before any sample.
	return r, nil
}

// agentCmd is the agent as the supervisor runs it: stopped by closing its
// stdin (it then cuts its last second, prints its summary and removes its
// files), killed only if it hangs 10 s more. A perfbisect that dies closes
// that stdin too, so the agent needs no parent-death signal (one was seen
// to arrive twice from a perfbisect killed with SIGKILL, and a second
// signal cut the agent's clean-up short).
func (l *Local) agentCmd() (proc.Cmd, error) {
	c := l.Agent
	if c.Path == "" {
		self, err := os.Executable()
		if err != nil {
			return c, fmt.Errorf("find this executable to start the agent: %v", err)
		}
		c.Path, c.Args = self, []string{"agent"}
	}
	c.Name = "perfbisect agent"
	c.StdinPipe = true
	c.Stop = []proc.Step{{CloseStdin: true, Wait: 10 * time.Second}}
	c.Keep, c.Quote = 20, proc.StderrOnly
	return c, nil
}

// agentRun is a run in the agent, read off its stdout as probe.Decoder
// reads a stream of records: every whole line counts, and one that is not
// a record is reported once the run is over.
type agentRun struct {
	samples chan probe.Sample
	// Set by record, whose calls have all returned once the agent is done.
	lines int // of its stdout so far
	secs  int
	got   *probe.Summary
	bad   []*jsonl.SyntaxError

	sum probe.Summary // set by end, before samples is closed
	err error
}

func (r *agentRun) Samples() <-chan probe.Sample { return r.samples }

func (r *agentRun) Wait() (probe.Summary, error) {
	for range r.samples { // drain, in case the caller did not
	}
	return r.sum, r.err
}

// record takes one line of the agent's stdout: a sample goes on at once,
// the summary is kept for the end; probe says what a line is.
func (r *agentRun) record(line string) {
	r.lines++
	b := bytes.TrimSpace([]byte(line))
	if len(b) == 0 {
		return
	}
	rec, ok, err := probe.DecodeRecord(b)
	switch {
	case err != nil:
		r.bad = append(r.bad, &jsonl.SyntaxError{Line: r.lines, Err: err})
	case !ok: // another type's
	case rec.Sample != nil:
		r.secs++
		r.samples <- *rec.Sample
	case rec.Summary != nil:
		r.got = rec.Summary
	}
}

// end waits for the agent to exit, says how the run ended, and closes
// samples.
func (r *agentRun) end(p proc.Process) {
	defer close(r.samples)
	werr := p.Wait()
	var ee *proc.ExitError
	switch {
	case r.got != nil:
		r.sum = *r.got
		if r.got.Ended == probe.EndFailed {
			r.err = errors.New(r.got.Error)
		}
	case r.secs > 0 && werr != nil:
		r.err = fmt.Errorf("workload agent died after %d s: %v", r.secs, werr)
	case errors.As(werr, &ee) && len(ee.Said) > 0:
		// It said why on stderr (perfbisect: …), as the command does.
		r.err = errors.New(strings.TrimPrefix(strings.Join(ee.Said, "\n"), "perfbisect: "))
	case werr != nil:
		r.err = werr
	default:
		r.err = fmt.Errorf("workload agent ended without a summary after %d s", r.secs)
	}
	if r.err == nil && len(r.bad) > 0 {
		var derr error = r.bad[0]
		if len(r.bad) > 1 {
			derr = fmt.Errorf("%w (and %d more unreadable lines)", r.bad[0], len(r.bad)-1)
		}
		r.err = fmt.Errorf("workload agent output: %v", derr)
	}
}
