package report

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfbisect/perfbisect/session"
)

// TestWriteBeside writes every format next to a real log, each as Write
// renders it; a format that cannot be written does not stop the others.
func TestWriteBeside(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "walk.jsonl")
	if err := session.WriteLogFile(logPath, stream(12)); err != nil {
		t.Fatal(err)
	}
	// A directory where the HTML report would go.
	if err := os.Mkdir(filepath.Join(dir, "walk.html"), 0o700); err != nil {
		t.Fatal(err)
	}
	r, paths, errs := WriteBeside(logPath)
	if r == nil || len(errs) != 1 || len(paths) != 2 || paths[0] != filepath.Join(dir, "walk.md") || paths[1] != filepath.Join(dir, "walk.json") {
		t.Fatalf("WriteBeside = %v, %q, %v; want md and json written, html failed", r != nil, paths, errs)
	}
	for _, f := range []Format{FormatMarkdown, FormatJSON} {
		got, err := os.ReadFile(filepath.Join(dir, "walk."+string(f)))
		if err != nil || !bytes.Equal(got, render(t, r, f)) {
			t.Errorf("walk.%s is not the report as Write renders it (%v)", f, err)
		}
	}
	if r, paths, errs := WriteBeside(filepath.Join(dir, "none.jsonl")); r != nil || paths != nil || len(errs) != 1 {
		t.Errorf("WriteBeside(no log) = %v, %q, %v; want one error", r, paths, errs)
	}
	if !FormatHTML.Valid() || Format("pdf").Valid() {
		t.Error("Valid is wrong")
	}
}
