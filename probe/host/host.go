// Package host is the seam between an investigation and the machine it
// investigates: the facts of the host, the knobs that change it, and the
// workloads that measure it. Local runs here, its workloads in a child
// `perfbisect agent`, its lab knobs through an adapter onto probe/lab;
// remote hosts (ssh, a twin EC2 instance) are other implementations of the
// same interface.
package host

import (
	"context"

	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/knob"
)

// Host is a machine under investigation.
type Host interface {
	// Name says which machine it is, for headers and logs.
	Name() string
	// Facts describes the machine and the filesystem under dataDir.
	Facts(ctx context.Context, dataDir string) (Facts, error)
	// Plan says exactly what a knob would change, changing nothing. op is
	// who would answer a manual knob (nil: nobody to ask), as for Apply.
	Plan(ctx context.Context, use knob.Use, w probe.Spec, op knob.Operator) (knob.Change, error)
	// Apply turns a knob and returns the workload to run with and how to
	// put the host back. op answers manual knobs (nil: nobody to ask).
	Apply(ctx context.Context, use knob.Use, w probe.Spec, op knob.Operator) (probe.Spec, knob.Change, knob.Revert, error)
	// Run starts a workload. An error here means nothing was measured.
	Run(ctx context.Context, w probe.Spec) (Run, error)
}

// Run is a workload under way.
type Run interface {
	// Samples yields one sample per second and is closed when the run ends.
	Samples() <-chan probe.Sample
	// Wait waits for the end (after Samples is drained) and returns the
	// summary, with an error when the workload could not finish: its
	// summary then covers the seconds it did measure.
	Wait() (probe.Summary, error)
}
