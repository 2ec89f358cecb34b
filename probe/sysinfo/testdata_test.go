package sysinfo

import (
	"os"
	"path/filepath"
	"testing"
)

// testdata is the real output of a Linux machine kept in testdata/name, for
// the parsers' tests and their fuzz seeds.
func testdata(tb testing.TB, name string) string {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}
