package tool

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/perfbisect/perfbisect/internal/pathx"
)

// baseDir is a workload's directory (Spec.Dir), made absolute.
type baseDir struct {
	path    string
	created bool // it did not exist: remove it afterwards
}

// makeBase resolves dir ("" is the current directory) and creates it when
// it does not exist but its parent does. It is made 0755: a managed
// PostgreSQL runs as the postgres user and must reach its data dir inside.
func makeBase(dir string) (baseDir, error) {
	abs, err := absDir(dir)
	if err != nil {
		return baseDir{}, err
	}
	st, err := os.Stat(abs)
	switch {
	case err == nil && !st.IsDir():
		return baseDir{}, fmt.Errorf("--dir %s: not a directory", abs)
	case err == nil:
		return baseDir{path: abs}, nil
	case !errors.Is(err, os.ErrNotExist):
		return baseDir{}, fmt.Errorf("--dir %s: %v", abs, pathx.Bare(err))
	}
	parent := filepath.Dir(abs)
	if _, err := os.Stat(parent); err != nil {
		return baseDir{}, fmt.Errorf("--dir %s: its parent %s: %v (create it first, or choose another --dir)", abs, parent, pathx.Bare(err))
	}
	if err := os.Mkdir(abs, 0o755); err != nil {
		return baseDir{}, fmt.Errorf("--dir %s: %v", abs, pathx.Bare(err))
	}
	return baseDir{path: abs, created: true}, nil
}

// remove removes the directory if makeBase created it: with what is in it
// when all is set, else only when empty.
func (b *baseDir) remove(all bool) error {
	if !b.created {
		return nil
	}
	rm := os.Remove
	if all {
		rm = os.RemoveAll
	}
	if err := rm(b.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove %s: %v", b.path, pathx.Bare(err))
	}
	b.created = false
	return nil
}
