package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/perfbisect/perfbisect/internal/tail"
	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/knob"
)

// Local is the machine perfbisect runs on.
type Local struct {
	// Env is where knobs keep what they create.
	Env knob.Env
	// Agent starts `perfbisect agent`; nil means this executable.
	Agent func(ctx context.Context) *exec.Cmd
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
	cmd, err := l.agentCmd(ctx)
	if err != nil {
		return nil, err
	}
	req, err := json.Marshal(Request{Type: "run", Workload: w})
	if err != nil {
		return nil, err
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	r := &agentRun{samples: make(chan probe.Sample, 16), stderr: &tail.Lines{Keep: 20}, stdin: stdin}
	cmd.Stderr = r.stderr
	// Stop by closing the agent's stdin: it then cuts its last second,
	// prints its summary and removes its files. Kill only if it hangs.
	cmd.Cancel = func() error { return stdin.Close() }
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the workload agent %s: %v", cmd.Path, err)
	}
	// On the lab's emulated volume, the workload's I/O goes through the
	// lab's throttled cgroup. The agent waits for its request, so nothing
	// is written before it is there.
	if st, ok := (labVolume{}).load(); ok && st.Contains(w.Dir) {
		if err := st.Enter(cmd.Process.Pid); err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			return nil, fmt.Errorf("put the workload in the lab's cgroup %s: %v", st.Cgroup, err)
		}
	}
	if _, err := stdin.Write(append(req, '\n')); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return nil, fmt.Errorf("send the workload to the agent: %v (%s)", err, r.stderr.String())
	}
	go r.read(cmd, stdout)
	// The agent prepares (creates and preallocates its files) before the
	// first second; a failure there comes back as an exit before any sample.
	return r, nil
}

func (l *Local) agentCmd(ctx context.Context) (*exec.Cmd, error) {
	if l.Agent != nil {
		return l.Agent(ctx), nil
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find this executable to start the agent: %v", err)
	}
	return exec.CommandContext(ctx, self, "agent"), nil
}

type agentRun struct {
	samples chan probe.Sample
	stderr  *tail.Lines
	stdin   io.Closer
	sum     probe.Summary
	err     error
}

func (r *agentRun) Samples() <-chan probe.Sample { return r.samples }

func (r *agentRun) Wait() (probe.Summary, error) {
	for range r.samples { // drain, in case the caller did not
	}
	return r.sum, r.err
}

func (r *agentRun) read(cmd *exec.Cmd, stdout io.Reader) {
	defer close(r.samples)
	d := probe.NewDecoder(stdout)
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
	werr := cmd.Wait()
	r.stdin.Close()
	switch {
	case got != nil:
		r.sum = *got
		if got.Ended == probe.EndFailed {
			r.err = errors.New(got.Error)
		}
	case werr != nil:
		why := strings.TrimSpace(r.stderr.String())
		if why == "" {
			why = werr.Error()
		}
		if secs > 0 {
			r.err = fmt.Errorf("workload agent died after %d s: %s (%v)", secs, why, werr)
		} else {
			r.err = fmt.Errorf("%s", strings.TrimPrefix(why, "perfbisect: "))
		}
	default:
		r.err = fmt.Errorf("workload agent ended without a summary after %d s", secs)
	}
	if derr := d.Err(); derr != nil && r.err == nil {
		r.err = fmt.Errorf("workload agent output: %v", derr)
	}
}
