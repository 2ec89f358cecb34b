package session

import (
	"context"
	"errors"
	"testing"

	"github.com/perfbisect/perfbisect/internal/testutil/hosttest"
	"github.com/perfbisect/perfbisect/probe/host"
)

// The conclusion says what the walk measured and no more: each judged step
// with its multipliers, each step that could not tell and the hypothesis
// it leaves open, and the host's own facts where the playbook names them.
// On the scripted host, with a reference 13x faster than the regression.

const referenceMs = 0.1

func TestFakeConclusions(t *testing.T) {
	const (
		measured   = " Measured: reproduce regressed (p50 13.0x the reference's)"
		tmpfsGone  = "; tmpfs gone (p50 1.00x the reference's, 0.08x the regression's)"
		volumeOpen = "whether the volume type limits the flushes (volume unavailable: volume-type is not available here: not scripted on the fake host)"
	)
	uu := map[string]struct {
		script func(h *hosttest.Fake, w *walk)
		want   string
	}{
		// fsync off cannot work here, and the step has no unavailable
		// branch: the persists words ("the writes themselves") would
		// assert what it never measured.
		"unavailable": {func(h *hosttest.Fake, _ *walk) {
			delete(h.Knobs, "fsync")
			h.Runs = []hosttest.FakeRun{{Samples: hosttest.Seconds(6, diskMs)}, {Samples: hosttest.Seconds(6, memoryMs)}}
		}, "The walk ends at step fsync without its answer, so nothing is concluded from it." +
			" Not known: whether the flushes are the cost (fsync unavailable: fsync is not available here: not scripted on the fake host)." +
			measured + tmpfsGone + "."},
		// The operator declined the tmpfs step: whether it is the disk is
		// not known, and the walk went on to the volume.
		"skipped": {func(h *hosttest.Fake, w *walk) {
			w.decline = true
			h.Runs = []hosttest.FakeRun{{Samples: hosttest.Seconds(6, diskMs)}}
		}, "flush latency of this disk; the volume type could not be tried here." +
			" Not known: whether the disk is the bottleneck (tmpfs skipped: the operator declined the changes); " + volumeOpen + "." +
			measured + "."},
		"failed": {func(h *hosttest.Fake, _ *walk) {
			h.Runs = []hosttest.FakeRun{{Samples: hosttest.Seconds(6, diskMs)},
				{Samples: hosttest.Seconds(3, memoryMs), Err: errors.New("workload agent died after 3 s: killed by SIGKILL")}}
		}, "flush latency of this disk; the volume type could not be tried here." +
			" Not known: whether the disk is the bottleneck (tmpfs failed: workload agent died after 3 s: killed by SIGKILL); " + volumeOpen + "." +
			measured + "."},
		// The volume step ran: its words name the volume the host has.
		"the host's volume": {func(h *hosttest.Fake, _ *walk) {
			h.HostFacts.Volume = &host.Volume{Type: "io1", SizeGiB: 100, IOPS: 200, Emulated: true}
			h.Knobs["volume-type"] = hosttest.FakeKnob{}
			h.Runs = []hosttest.FakeRun{{Samples: hosttest.Seconds(6, diskMs)}, {Samples: hosttest.Seconds(6, memoryMs)},
				{Samples: hosttest.Seconds(6, memoryMs)}, {Samples: hosttest.Seconds(6, memoryMs)}}
		}, "the io1 volume (100 GiB, 200 IOPS, emulated) is slow and gp3 is not." +
			measured + tmpfsGone + "; fsync gone (p50 1.00x the reference's, 0.08x the regression's); volume gone (p50 1.00x the reference's, 0.08x the regression's)."},
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) {
			h := fakeHost()
			w := &walk{}
			u.script(h, w)
			r := fakeRunner(t, w, h)
			r.opt.Reference = hosttest.Seconds(6, referenceMs)
			r.opt.Playbook.Steps[3].Gone.Conclude = "{volume} is slow and gp3 is not"
			conclusion, err := r.Run(context.Background())
			t.Logf("conclusion: %s", conclusion)
			if err != nil || conclusion != u.want {
				t.Errorf("Run: %v\n got %q\nwant %q", err, conclusion, u.want)
			}
			// What the printer, the screen and the report show is the
			// session's end: the same words.
			if end := r.Walk().End; end == nil || end.Conclusion != conclusion {
				t.Errorf("session end %+v, want the conclusion", end)
			}
		})
	}
}
