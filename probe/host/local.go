package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/perfbisect/perfbisect/internal/proc"
	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/knob"
)

// Local is the machine perfbisect runs on.
type Local struct {
	// Env is where knobs keep what they create.
	Env knob.Env
	// Agent is the program that serves as `perfbisect agent` (its path,
	// arguments and environment); a zero Path means this executable with
	// the argument agent.
	Agent proc.Cmd
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
		f.Lab = "EMULATED EBS volume (perfbisect lab): " + describeVolume(st)
	}
	return f, err
}

func (l *Local) Plan(ctx context.Context, use knob.Use, w probe.Spec) (knob.Change, error) {
	k, err := knob.New(use.Knob, use.With)
	if err != nil {
		return knob.Change{}, err
	}
	return k.Plan(ctx, l.Env, w) // changes nothing: a dry run makes no directory either
}

func (l *Local) Apply(ctx context.Context, use knob.Use, w probe.Spec, op knob.Operator) (probe.Spec, knob.Change, knob.Revert, error) {
	k, err := knob.New(use.Knob, use.With)
	if err != nil {
		return w, knob.Change{}, nil, err
	}
	env := l.Env // a knob creates the state directory when it needs it (tmpfs)
	env.Operator = op
	return k.Apply(ctx, env, w)
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
	// Its stdout is the stream of samples, through a pipe to the decoder;
	// its stderr is kept for the error it ends with.
	records, out := io.Pipe()
	c.Line = func(line proc.Line) {
		if !line.Stderr {
			out.Write([]byte(line.Text + "\n"))
		}
	}
	p, err := proc.Or(l.Env.Runner).Start(ctx, c)
	if err != nil {
		return nil, fmt.Errorf("the workload agent %s: %v", c.Path, err)
	}
	fail := func(err error) (Run, error) {
		records.Close()
		p.Kill()
		p.Wait()
		return nil, err
	}
	// On the lab's emulated volume, the workload's I/O goes through the
	// lab's throttled cgroup. The agent waits for its request, so nothing
	// is written before it is there.
	if st, ok := (labVolume{}).load(); ok && st.Contains(w.Dir) {
		if err := st.Enter(p.Pid()); err != nil {
			return fail(fmt.Errorf("put the workload in the lab's cgroup %s: %v", st.Cgroup, err))
		}
	}
	if _, err := p.Stdin().Write(append(req, '\n')); err != nil {
		return fail(fmt.Errorf("send the workload to the agent: %v%s", err, proc.Quote(p.Output().Said(proc.StderrOnly))))
	}
	go func() {
		<-p.Done()
		out.Close()
	}()
	r := &agentRun{samples: make(chan probe.Sample, 16)}
	go r.read(p, records)
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

type agentRun struct {
	samples chan probe.Sample
	sum     probe.Summary
	err     error
}

func (r *agentRun) Samples() <-chan probe.Sample { return r.samples }

func (r *agentRun) Wait() (probe.Summary, error) {
	for range r.samples { // drain, in case the caller did not
	}
	return r.sum, r.err
}

func (r *agentRun) read(p proc.Process, records *io.PipeReader) {
	defer close(r.samples)
	d := probe.NewDecoder(records)
	var got *probe.Summary
	var secs int
	for d.Scan() {
		switch rec := d.Record(); {
		case rec.Sample != nil:
			secs++
			r.samples <- *rec.Sample
		case rec.Summary != nil:
			got = rec.Summary
		}
	}
	records.Close() // what more it prints goes nowhere
	werr := p.Wait()
	p.Stdin().Close()
	var ee *proc.ExitError
	switch {
	case got != nil:
		r.sum = *got
		if got.Ended == probe.EndFailed {
			r.err = errors.New(got.Error)
		}
	case secs > 0 && werr != nil:
		r.err = fmt.Errorf("workload agent died after %d s: %v", secs, werr)
	case errors.As(werr, &ee) && len(ee.Said) > 0:
		// It said why on stderr (perfbisect: …), as the command does.
		r.err = errors.New(strings.TrimPrefix(strings.Join(ee.Said, "\n"), "perfbisect: "))
	case werr != nil:
		r.err = werr
	default:
		r.err = fmt.Errorf("workload agent ended without a summary after %d s", secs)
	}
	if derr := d.Err(); derr != nil && r.err == nil {
		r.err = fmt.Errorf("workload agent output: %v", derr)
	}
}
