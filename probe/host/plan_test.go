package host

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/knob"
)

// TestPlanChangesNothing: planning (and so a dry run) makes no directory,
// not even the knobs' state directory.
func TestPlanChangesNothing(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	l := &Local{Env: knob.Env{StateDir: state, Root: os.Geteuid() == 0}}
	spec := probe.DefaultSpec()
	spec.Dir = t.TempDir()
	for _, use := range []knob.Use{{Knob: "tmpfs"}, {Knob: "fsync"}} {
		if _, err := l.Plan(context.Background(), use, spec, nil); err != nil {
			t.Fatalf("plan %s: %v", use.Knob, err)
		}
	}
	if _, err := os.Stat(state); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Plan made %s (stat: %v)", state, err)
	}
}
