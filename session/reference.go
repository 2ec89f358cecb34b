package session

import (
	"fmt"

	"github.com/perfbisect/perfbisect/probe"
)

// LoadReference reads the known-good run from a session log (the samples
// of its reproduce step) or from `perfbisect probe --json` output (all its
// samples). Torn or bad lines are skipped and returned for the caller to
// report.
func LoadReference(path string) ([]probe.Sample, []*LineError, error) {
	evs, bad, err := ReadLogFile(path)
	if err != nil {
		return nil, bad, fmt.Errorf("reference: %w", err)
	}
	samples := Samples(evs)
	if len(samples) == 0 {
		return nil, bad, fmt.Errorf("reference %s: no samples in it (want a session log or `perfbisect probe --json` output)", path)
	}
	return samples, bad, nil
}

// Samples picks a run's samples from events: those of the reproduce step of
// a session log, or every sample of a probe's output (which has no steps).
func Samples(evs []Event) []probe.Sample {
	repro := ""
	for _, e := range evs {
		if s, ok := e.Data.(*StepStart); ok && s.Reproduce {
			repro = e.Step
			break
		}
	}
	var out []probe.Sample
	for _, e := range evs {
		if s, ok := e.Data.(*probe.Sample); ok && e.Step == repro {
			out = append(out, *s)
		}
	}
	return out
}
