// Package pathx owns what several packages say and do about a path: Bare
// keeps an error from naming its path twice, and MakeDir resolves and
// creates a workload's --dir one way for the fsync probe and the tools
// (CheckDir checks it the same way, creating nothing).
package pathx

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// wOK is access(2)'s W_OK, which package syscall does not name.
const wOK = 2

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

// CheckDir says, before anything is made, whether MakeDir can give a
// workload dir: a directory, or a missing one whose parent is a directory,
// and either writable. It returns the absolute path. This is the one check
// of a --dir: `run` makes it before its log, the probe through MakeDir.
func CheckDir(dir string) (abs string, err error) {
	abs, exists, err := resolveDir(dir)
	if err != nil {
		return "", err
	}
	at := abs
	if !exists {
		at = filepath.Dir(abs)
	}
	if err := syscall.Access(at, wOK); err != nil {
		return "", fmt.Errorf("--dir %s: %s is not writable: %v (choose a writable --dir)", abs, at, err)
	}
	return abs, nil
}

// resolveDir makes dir absolute ("" is the current directory) and says
// whether it exists; one that does not must have a parent directory.
func resolveDir(dir string) (abs string, exists bool, err error) {
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
		return abs, true, nil
	case !errors.Is(err, os.ErrNotExist):
		return "", false, fmt.Errorf("--dir %s: %v", abs, Bare(err))
	}
	parent := filepath.Dir(abs)
	if st, err := os.Stat(parent); err != nil {
		return "", false, fmt.Errorf("--dir %s: its parent %s: %v (create it first, or choose another --dir)", abs, parent, Bare(err))
	} else if !st.IsDir() {
		return "", false, fmt.Errorf("--dir %s: its parent %s is not a directory (choose another --dir)", abs, parent)
	}
	return abs, false, nil
}

// MakeDir resolves a workload's --dir ("" is the current directory) and
// creates it with perm when it does not exist but its parent does, so a
// typo far from any real directory is an error, not a tree of new ones.
// created says it made the directory (the caller removes it afterwards).
func MakeDir(dir string, perm os.FileMode) (abs string, created bool, err error) {
	abs, exists, err := resolveDir(dir)
	if err != nil || exists {
		return abs, false, err
	}
	if err := os.Mkdir(abs, perm); err != nil {
		return "", false, fmt.Errorf("--dir %s: %v", abs, Bare(err))
	}
	return abs, true, nil
}
