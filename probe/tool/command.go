package tool

import (
	"context"
	"fmt"
	"os/exec"

	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/parse"
)

// commandJob runs any program that prints a line per second, with
// /bin/sh -c in Spec.Dir, and reads the lines its pattern matches on its
// stdout and stderr. It has no time limit of its own: it is stopped when
// the spec's duration is over, which ends the run normally.
type commandJob struct {
	programs
	sp   probe.Spec
	base baseDir
}

func newCommand(spec probe.Spec, run programs) (*commandJob, error) {
	return &commandJob{programs: run, sp: spec}, nil
}

func (j *commandJob) prepare(context.Context) error {
	if _, err := exec.LookPath(shell); err != nil {
		return missing("sh", err)
	}
	var err error
	j.base, err = makeBase(j.sp.Dir)
	return err
}

func (j *commandJob) run() (run, error) {
	re, err := probe.CommandPattern(j.sp.Pattern)
	if err != nil {
		return run{}, err
	}
	inv := invocation{path: shell, args: []string{"-c", j.sp.Command}, dir: j.base.path,
		env: []string{"PERFBISECT_DIR=" + j.base.path, "PYTHONUNBUFFERED=1"}}
	// On a pipe, C programs buffer their output in blocks: a command like
	// 'my-bench | grep tps' would print its seconds only when it ends.
	// stdbuf (coreutils) makes every program the shell starts write its
	// lines as they come (through an LD_PRELOAD they inherit; it then execs
	// the shell, which keeps its pid), as PYTHONUNBUFFERED does for Python.
	// A program that sets its own buffering or is static is not changed.
	if stdbuf, err := exec.LookPath("stdbuf"); err == nil {
		inv.args = append([]string{"-oL", "-eL", inv.path}, inv.args...)
		inv.path = stdbuf
	}
	return run{
		name:       fmt.Sprintf("command %q", j.sp.Command),
		invocation: inv,
		stream:     parse.NewCommandStream(re),
		fromStdout: true, fromStderr: true, quoteStdout: true,
	}, nil
}

func (j *commandJob) cleanup(context.Context) error {
	if j.sp.Keep {
		return nil
	}
	// A directory perfbisect made for the command goes with what the
	// command wrote in it; one that existed is left as it is.
	return j.base.remove(true)
}

func (j *commandJob) spec() probe.Spec {
	s := j.sp
	s.Dir = j.base.path
	return s
}
