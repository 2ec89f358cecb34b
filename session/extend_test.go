package session

import (
	"context"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/testutil/hosttest"
	"github.com/perfbisect/perfbisect/probe/knob"
	"github.com/perfbisect/perfbisect/session/playbook"
)

// An x pressed while the step's knobs are still being planned and applied
// (a mount, a server's start can take long) counts for the step, as one
// pressed while it measures does.
func TestExtendBeforeTheWorkloadRuns(t *testing.T) {
	h := fakeHost()
	h.Runs = []hosttest.FakeRun{{Samples: hosttest.Seconds(40, memoryMs), Hold: true}}
	w := &walk{}
	r := fakeRunner(t, w, h)
	r.opt.Confirm = func(context.Context, *playbook.Step, []knob.Change) (bool, error) {
		r.Extend(10 * time.Second) // x while the operator is asked
		return true, nil
	}
	res := r.Step(context.Background(), &r.opt.Playbook.Steps[1]) // tmpfs, no reference and no regression
	if ext := w.of(TypeExtend, "tmpfs"); len(ext) != 1 || ext[0].Data.(*Extend).PlannedS != 16 {
		t.Fatalf("extend events %+v, want one to 16 s", ext)
	}
	if n := len(res.Samples); n != 16 && n != 17 {
		t.Errorf("%d seconds, want the 16 it was extended to", n)
	}
}
