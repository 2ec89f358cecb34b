package session

import (
	"strings"

	"github.com/perfbisect/perfbisect/probe/knob"
)

// RecoverHint says what puts back a knob a log left applied.
const RecoverHint = "run 'perfbisect recover' on that host to put it back"

// Unreverted is a knob that changed the host (its change names its crash
// journal entry) and that the log never says was put back, nor that putting
// it back failed: perfbisect died (kill -9, a crash, a power cut) with it
// applied, and the host may still be changed.
type Unreverted struct {
	Step string
	KnobAt
}

// What says the knob and what it changed: "tmpfs size=64m: tmpfs size=64MiB
// at /run/perfbisect/tmpfs-123 (rw,…)".
func (u Unreverted) What() string {
	s := knob.Use{Knob: u.Change.Knob, With: u.Change.Settings}.String()
	switch {
	case u.Change.After != "":
		s += ": " + u.Change.After
	case len(u.Change.Do) > 0:
		s += ": " + strings.Join(u.Change.Do, "; ")
	}
	return s
}

// NotPutBack lists, as far as the log goes, the knobs applied and never put
// back. While a step runs its knobs are applied by design: ask once the walk
// is over, or of a log read back.
func (w *Walk) NotPutBack() []Unreverted {
	var out []Unreverted
	for _, s := range w.Steps {
		var open []KnobAt // applied, not yet closed, in order
		for _, c := range s.Changes {
			switch c.Action {
			case KnobApplied:
				if c.Change.Journal != "" { // else nothing on the host to put back
					open = append(open, c)
				}
			case KnobReverted, KnobRevertFailed:
				// Reverts run in reverse order: the one closed is the
				// last applied of that knob.
				for i := len(open) - 1; i >= 0; i-- {
					if open[i].Change.Knob == c.Change.Knob {
						open = append(open[:i], open[i+1:]...)
						break
					}
				}
			}
		}
		for _, c := range open {
			out = append(out, Unreverted{Step: s.ID, KnobAt: c})
		}
	}
	return out
}
