package session

import (
	"context"
	"fmt"
	"strings"

	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/knob"
	"github.com/perfbisect/perfbisect/session/playbook"
)

// A step made by hand (manual, host) can be measured on another machine —
// the bare host outside the cluster — and its samples given from a file:
// by --result in advance, or by the operator when the step asks.

// Elsewhere says that a step's samples, the sample events after it, were
// measured on another machine and read from File.
type Elsewhere struct {
	File string `json:"file"`
	// Format is the tool whose saved output File is ("sysbench", …), or ""
	// for a session log or `perfbisect probe --json` output.
	Format  string `json:"format,omitempty"`
	Seconds int    `json:"seconds"`
	// Differs says how the file's workload differs from the walk's, when
	// it does: the step is then not the same measurement.
	Differs string `json:"differs,omitempty"`
}

// Result is a step's measurement taken on another machine: the file and
// what LoadRun read of it (its seconds and, when the file says, its
// workload).
type Result struct {
	File string
	Run  *Run
}

// LoadResult reads a measurement taken elsewhere, as LoadRun reads a
// reference: a session log (its reproduce step), probe output, or saved
// sysbench, pgbench or fio output.
func LoadResult(path string) (*Result, error) {
	run, err := LoadRun(path, "")
	if err != nil {
		return nil, err
	}
	return &Result{File: path, Run: run}, nil
}

// ManualOperator is an operator who, at a step made by hand, either makes
// the change here or gives the measurement taken on another machine.
type ManualOperator interface {
	knob.Operator
	// ManualStep shows the step's changes and waits: here when the change
	// is made on this host (the step then runs its workload), a result
	// when it was measured elsewhere, neither when the operator declines.
	ManualStep(ctx context.Context, step *playbook.Step, changes []knob.Change) (res *Result, here bool, err error)
}

// ByHand says whether every knob of step is one a person turns, so it may
// be measured elsewhere.
func ByHand(step *playbook.Step) bool {
	for _, use := range step.Knobs {
		if !knob.ByHand(use.Knob) {
			return false
		}
	}
	return len(step.Knobs) > 0
}

// ByHandSteps lists the ids of the playbook's steps made by hand.
func ByHandSteps(pb *playbook.Playbook) []string {
	var ids []string
	for i := range pb.Steps {
		if ByHand(&pb.Steps[i]) {
			ids = append(ids, pb.Steps[i].ID)
		}
	}
	return ids
}

// checkResults says which given result names no step made by hand.
func (opt Options) checkResults() error {
	for id := range opt.Results {
		if step, ok := opt.Playbook.Step(id); ok && ByHand(step) {
			continue
		}
		which := "none has"
		if ids := ByHandSteps(opt.Playbook); len(ids) > 0 {
			which = "those made by hand are " + strings.Join(ids, ", ")
		}
		return fmt.Errorf("--result %s: playbook %s has no step %s made by hand (%s)", id, opt.Playbook.Name, id, which)
	}
	return nil
}

// answered is the operator of a step whose instructions were answered
// already (the change is made here): each knob's own question, one each,
// is answered yes, and what comes after (put it back) is the operator's.
type answered struct {
	knob.Operator
	left int
}

func (a *answered) Manual(ctx context.Context, title string, lines []string) (bool, error) {
	if a.left > 0 {
		a.left--
		return true, nil
	}
	return a.Operator.Manual(ctx, title, lines)
}

// elsewhere takes a step's samples from a measurement made on another
// machine and judges them as any step's.
func (r *Runner) elsewhere(step *playbook.Step, res *Result, took func() float64) StepState {
	samples := res.Run.Samples
	e := &Elsewhere{File: res.File, Format: res.Run.Format, Seconds: len(samples), Differs: differs(res.Run.Workload, r.opt.Workload)}
	r.emit(step.ID, e)
	if e.Differs != "" {
		r.emit(step.ID, &Note{Text: fmt.Sprintf("measured elsewhere (%s), not the same workload: %s", e.File, e.Differs)})
	}
	for i := range samples {
		r.emit(step.ID, &samples[i])
	}
	return r.judged(step, samples, nil, took())
}

// differs says how the file's workload differs from the walk's, in what
// both record (WorkloadDiff), or "" when it does not or the file does not
// say.
func differs(file *probe.Spec, walk probe.Spec) string {
	if file == nil {
		return ""
	}
	return strings.Join(WorkloadDiff(*file, walk), "; ")
}
