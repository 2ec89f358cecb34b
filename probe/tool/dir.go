package tool

import (
	"errors"
	"fmt"
	"os"

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
	abs, created, err := pathx.MakeDir(dir, 0o755)
	if err != nil {
		return baseDir{}, err
	}
	return baseDir{path: abs, created: created}, nil
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
