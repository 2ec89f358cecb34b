package knob

import (
	"fmt"
	"path/filepath"

	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/sysinfo"
)

// dataDir is the workload's data directory as an absolute path: the current
// directory when the spec names none, as the fsync workload does.
func dataDir(w probe.Spec) (string, error) {
	dir := w.Dir
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("data dir %s: %v", dir, err)
	}
	return abs, nil
}

// dataMount returns the mount the workload's data dir lives on, and the
// directory it looked at: the data dir, or its nearest parent that exists
// when the workload has not created it yet, with symlinks resolved.
func dataMount(w probe.Spec) (dir string, m sysinfo.Mount, err error) {
	abs, err := dataDir(w)
	if err != nil {
		return "", sysinfo.Mount{}, err
	}
	dir, m, err = sysinfo.Locate(abs)
	if err != nil {
		return "", sysinfo.Mount{}, fmt.Errorf("data dir %s: %v", abs, err)
	}
	return dir, m, nil
}

// describeMount says in one line what a directory is on, for Before.
func describeMount(dir string, m sysinfo.Mount) string {
	return fmt.Sprintf("%s (%s is on %s mounted at %s, %s)", m.FSType, dir, m.Source, m.Point, m.SuperOpts)
}
