package host

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/journal"
	"github.com/perfbisect/perfbisect/probe/knob"
)

// TestApplyJournalsBeforeTheChange: the shell knob's apply command finds
// its entry already written, with the revert as data; the entry goes once
// the knob is put back. A journal that cannot be written stops the change
// before it is made.
func TestApplyJournalsBeforeTheChange(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "journal")
	j, err := journal.Open(dir, "walk.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	l := &Local{Env: knob.Env{StateDir: t.TempDir()}, Journal: j}
	spec := probe.DefaultSpec()
	spec.Dir = t.TempDir()
	seen := filepath.Join(t.TempDir(), "seen")
	use := knob.Use{Knob: "shell", With: knob.Settings{"apply": "ls " + dir + " > " + seen, "revert": "echo put back"}}
	ctx := journal.WithStep(context.Background(), "the-step")
	_, ch, revert, err := l.Apply(ctx, use, spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(seen); !strings.HasSuffix(strings.TrimSpace(string(b)), ".json") {
		t.Errorf("the apply command saw the journal as %q: not written before the change", b)
	}
	es, _, _ := journal.Read(dir)
	if len(es) != 1 || es[0].Step != "the-step" || es[0].Knob != "shell" || es[0].Undo[0].Shell == nil ||
		es[0].Undo[0].Shell.Script != "echo put back" || ch.Journal != es[0].File() {
		t.Fatalf("entries %+v, change's journal %q", es, ch.Journal)
	}
	if err := revert(ctx); err != nil {
		t.Fatal(err)
	}
	if es, bad, _ := journal.Read(dir); len(es)+len(bad) != 0 {
		t.Errorf("after the revert the journal holds %+v %+v", es, bad)
	}

	notADir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notADir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if l.Journal, err = journal.Open(filepath.Join(notADir, "journal"), "walk.jsonl"); err != nil {
		t.Fatal(err)
	}
	os.Remove(seen)
	if _, _, _, err := l.Apply(ctx, use, spec, nil); err == nil || !strings.Contains(err.Error(), "journal") {
		t.Errorf("Apply with a journal it cannot write: %v", err)
	}
	if _, err := os.Stat(seen); !os.IsNotExist(err) {
		t.Errorf("the change was made without its journal entry (stat %v)", err)
	}
}
