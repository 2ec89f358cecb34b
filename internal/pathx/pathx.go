// Package pathx owns what several packages say and do about a path: Bare
// keeps an error from naming its path twice, and MakeDir resolves and
// creates a workload's --dir one way for the fsync probe and the tools.
package pathx

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Bare drops the operation and path an *os.PathError repeats, for messages
// that already name them: "create /x: permission denied", not
// "create /x: open /x: permission denied".
func Bare(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// MakeDir resolves a workload's --dir ("" is the current directory) and
// creates it with perm when it does not exist but its parent does, so a
// typo far from any real directory is an error, not a tree of new ones.
// created says it made the directory (the caller removes it afterwards).
func MakeDir(dir string, perm os.FileMode) (abs string, created bool, err error) {
	if dir == "" {
		dir = "."
	}
	if abs, err = filepath.Abs(dir); err != nil {
		return "", false, fmt.Errorf("--dir %s: %v", dir, err)
	}
	st, err := os.Stat(abs)
	switch {
	case err == nil && !st.IsDir():
		return "", false, fmt.Errorf("--dir %s: not a directory", abs)
	case err == nil:
		return abs, false, nil
	case !errors.Is(err, os.ErrNotExist):
		return "", false, fmt.Errorf("--dir %s: %v", abs, Bare(err))
	}
	parent := filepath.Dir(abs)
	if _, err := os.Stat(parent); err != nil {
		return "", false, fmt.Errorf("--dir %s: its parent %s: %v (create it first, or choose another --dir)", abs, parent, Bare(err))
	}
	if err := os.Mkdir(abs, perm); err != nil {
		return "", false, fmt.Errorf("--dir %s: %v", abs, Bare(err))
	}
	return abs, true, nil
}
