package journal

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/proc"
)

func open(t *testing.T, dir string) *Journal {
	t.Helper()
	j, err := Open(dir, "walk.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func read(t *testing.T, dir string) ([]Entry, []Bad) {
	t.Helper()
	es, bad, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	return es, bad
}

// TestWillReplacesAtomicallyAndDoneRemoves: an entry said twice is one
// entry, the last said, with no temporary file beside it; Done removes it.
func TestWillReplacesAtomicallyAndDoneRemoves(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "journal")
	p := open(t, dir).Pending("tmpfs-step", "tmpfs")
	if p.File() != "" {
		t.Fatalf("File %q before anything was written", p.File())
	}
	if err := p.Will("first", Action{RemoveAll: "/nowhere/a"}); err != nil {
		t.Fatal(err)
	}
	if err := p.Will("a tmpfs mounted on /x", Action{Unmount: "/x"}); err != nil {
		t.Fatal(err)
	}
	es, bad := read(t, dir)
	if len(es) != 1 || len(bad) != 0 {
		t.Fatalf("entries %+v, bad %+v: want one", es, bad)
	}
	e := es[0]
	wd, _ := os.Getwd()
	if e.What != "a tmpfs mounted on /x" || e.Undo[0].Unmount != "/x" || e.Step != "tmpfs-step" || e.Knob != "tmpfs" ||
		e.PID != os.Getpid() || e.Session != filepath.Join(wd, "walk.jsonl") || e.Since.IsZero() || e.File() != p.File() {
		t.Errorf("entry %+v", e)
	}
	if !e.Live() {
		t.Error("this process's entry is not live")
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(names) != 1 {
		t.Errorf("files in the journal: %q, want the entry alone", names)
	}
	if err := p.Done(); err != nil {
		t.Fatal(err)
	}
	if es, _ := read(t, dir); len(es) != 0 {
		t.Errorf("after Done: %+v", es)
	}
	if err := p.Done(); err != nil {
		t.Errorf("Done twice: %v", err)
	}
}

// TestNilJournalRecordsNothing: knobs run without a journal in tests and
// dry runs.
func TestNilJournalRecordsNothing(t *testing.T) {
	var j *Journal
	p := j.Pending("s", "k")
	if err := p.Will("x", Action{RemoveAll: "/x"}); err != nil || p.File() != "" || p.Done() != nil {
		t.Errorf("a nil journal did something: %v %q", err, p.File())
	}
}

// TestReadReportsTornEntries: a file that is not an entry it can read is
// reported (something may still be changed), a write cut short before its
// rename is not an entry at all.
func TestReadReportsTornEntries(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "torn.json", []byte(`{"pid": 12, "knob": "tmp`))
	write(t, dir, "cut.json.tmp", []byte(`{"pid": 12`))
	write(t, dir, "empty.json", []byte(`{"pid": 12, "knob": "tmpfs", "what": "x"}`))
	es, bad := read(t, dir)
	if len(es) != 0 || len(bad) != 2 {
		t.Fatalf("entries %+v, bad %+v: want 2 bad", es, bad)
	}
	for _, b := range bad {
		if strings.HasSuffix(b.File, ".tmp") {
			t.Errorf("a temporary file taken for an entry: %v", b)
		}
	}
	if es, bad, err := Read(filepath.Join(dir, "missing")); err != nil || len(es)+len(bad) != 0 {
		t.Errorf("a missing journal: %v %v %v", es, bad, err)
	}
}

// TestLiveEntriesAreNotDead: the entries of a running perfbisect are its
// own to put back; recover never touches them.
func TestLiveEntriesAreNotDead(t *testing.T) {
	dir := t.TempDir()
	keep := t.TempDir()
	p := open(t, dir).Pending("s", "shell")
	if err := p.Will("x", Action{RemoveAll: keep}); err != nil {
		t.Fatal(err)
	}
	dead, bad, err := Dead(dir)
	if err != nil || len(dead)+len(bad) != 0 {
		t.Fatalf("dead %+v bad %+v err %v: a live process's entry taken for dead", dead, bad, err)
	}
	es, _ := read(t, dir)
	if err := Recover(context.Background(), es[0]); err == nil || !strings.Contains(err.Error(), "still running") {
		t.Errorf("Recover of a live entry: %v", err)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("a live entry was undone: %v", err)
	}
}

// TestRecoverUndoesADeadEntry: the entry of a process that is gone is
// undone in order and removed.
func TestRecoverUndoesADeadEntry(t *testing.T) {
	dir := t.TempDir()
	a, b := t.TempDir(), t.TempDir()
	pid := deadPID(t)
	writeEntry(t, dir, Entry{PID: pid, Start: 1, Knob: "tmpfs", What: "two dirs", Undo: []Action{{RemoveAll: a}, {RemoveAll: b}}})
	dead, _, _ := Dead(dir)
	if len(dead) != 1 {
		t.Fatalf("dead entries %+v, want the one of pid %d", dead, pid)
	}
	if err := Recover(context.Background(), dead[0]); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{a, b} {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("%s not removed: %v", d, err)
		}
	}
	if es, bad := read(t, dir); len(es)+len(bad) != 0 {
		t.Errorf("journal after recover: %+v %+v", es, bad)
	}
}

// TestRecoverKeepsWhatFailed: an undo that fails keeps the entry with what
// is left to do, and says how to do it by hand.
func TestRecoverKeepsWhatFailed(t *testing.T) {
	dir := t.TempDir()
	a, b := t.TempDir(), t.TempDir()
	bad := filepath.Join(t.TempDir(), "no", "scheduler")
	writeEntry(t, dir, Entry{PID: deadPID(t), Start: 1, Knob: "scheduler", What: "the scheduler", Undo: []Action{
		{RemoveAll: a}, {Write: &Write{File: bad, Value: "mq-deadline"}}, {RemoveAll: b}}})
	dead, _, _ := Dead(dir)
	err := Recover(context.Background(), dead[0])
	if err == nil || !strings.Contains(err.Error(), "by hand: echo mq-deadline > "+bad) || !strings.Contains(err.Error(), "rm -rf "+b) {
		t.Fatalf("error %v: want how to do the rest by hand", err)
	}
	if _, err := os.Stat(a); !os.IsNotExist(err) {
		t.Errorf("the first undo did not run: %v", err)
	}
	if _, err := os.Stat(b); err != nil {
		t.Errorf("an undo after the failed one ran: %v", err)
	}
	es, _ := read(t, dir)
	if len(es) != 1 || len(es[0].Undo) != 2 || es[0].Undo[0].Write == nil {
		t.Errorf("entry after a failed undo: %+v, want the two actions left", es)
	}
}

// TestStopNeverSignalsARecycledPid: a process whose start time is not the
// entry's is another that reused the pid, and is left alone; the one named
// is stopped.
func TestStopNeverSignalsARecycledPid(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	defer cmd.Process.Kill()
	pid := cmd.Process.Pid
	start, err := proc.StartTime(pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := (Action{Stop: &Stop{Name: "server", PID: pid, Start: start + 1}}).Do(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
		t.Fatal("a process that reused the pid was signalled")
	case <-time.After(200 * time.Millisecond):
	}
	if err := (Action{Stop: &Stop{Name: "server", PID: pid, Start: start}}).Do(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		t.Fatal("the process named was not stopped")
	}
}

// deadPID is the pid of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func writeEntry(t *testing.T, dir string, e Entry) {
	t.Helper()
	e.Since = time.Now()
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, "dead.json", b)
}

func write(t *testing.T, dir, name string, b []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
		t.Fatal(err)
	}
}
