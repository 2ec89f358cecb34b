package testutil

import (
	"os"
	"testing"
)

// failures keeps what a helper reports instead of failing the test.
type failures struct {
	testing.TB
	said []any
}

func (f *failures) Error(args ...any) { f.said = append(f.said, args...) }

// ClosesFile fails a test whose runner leaves the file open, and only that.
func TestClosesFile(t *testing.T) {
	for name, u := range map[string]struct {
		use  func(*os.File)
		fail bool
	}{
		"closed":    {func(f *os.File) { f.Close() }, false},
		"left open": {func(*os.File) {}, true},
	} {
		t.Run(name, func(t *testing.T) {
			f := &failures{TB: t}
			ClosesFile(f, u.use)
			if failed := len(f.said) > 0; failed != u.fail {
				t.Errorf("ClosesFile reported %q; want a failure %t", f.said, u.fail)
			}
		})
	}
}
