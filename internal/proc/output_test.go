package proc

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLast(t *testing.T) {
	l := &Tail{Keep: 3}
	fmt.Fprintf(l, "one\r\ntwo\n\n   \nthree\nfo")
	fmt.Fprintf(l, "ur\nfive")
	if got, want := l.Last(), []string{"three", "four", "five"}; !slices.Equal(got, want) {
		t.Errorf("Last = %q, want %q", got, want)
	}
	l.Add("six")
	if got, want := l.String(), "four\nsix\nfive"; got != want {
		t.Errorf("after Add: String = %q, want %q (the unfinished line stays last)", got, want)
	}
}

func TestEmptyAndDefault(t *testing.T) {
	l := &Tail{}
	if l.String() != "" || l.Last() != nil || l.Said() != nil {
		t.Errorf("a new Tail is not empty: %q", l.Last())
	}
	fmt.Fprint(l, "\n \n\t\r\n")
	if l.Last() != nil {
		t.Errorf("blank lines were kept: %q", l.Last())
	}
	for i := range 25 {
		fmt.Fprintf(l, "line %d\n", i)
	}
	if got := l.Last(); len(got) != DefaultKeep || got[0] != "line 15" {
		t.Errorf("Keep 0 kept %q, want the last %d", got, DefaultKeep)
	}
}

func TestLongLines(t *testing.T) {
	l := &Tail{Keep: 2}
	l.Write([]byte(strings.Repeat("é", 400) + "\n")) // 800 bytes
	got := l.Last()[0]
	if len(got) > maxKept+len("…") || !strings.HasSuffix(got, "…") || !strings.HasPrefix(got, "éé") {
		t.Errorf("a long line was kept as %d bytes: %q…", len(got), got[:20])
	}
	// A line without an end cannot grow without bound.
	l.Write([]byte(strings.Repeat("x", maxPartial+1)))
	l.mu.Lock()
	n := len(l.partial)
	l.mu.Unlock()
	if n != 0 || len(l.Last()) != 2 {
		t.Errorf("an endless line is held as %d bytes, kept %d lines", n, len(l.Last()))
	}
	l.Write([]byte("bad \xff byte\n"))
	if got := l.Last()[1]; got != "bad ? byte" {
		t.Errorf("invalid UTF-8 kept as %q", got)
	}
}

func TestEarlier(t *testing.T) {
	l := &Tail{Keep: 3}
	fmt.Fprint(l, "start\nERROR: first\nnoise\nFATAL: second\n")
	if got := l.Earlier(); len(got) != 0 {
		t.Errorf("Earlier = %q while the errors are still in Last", got)
	}
	for i := range 10 {
		fmt.Fprintf(l, "advice %d\n", i)
	}
	fmt.Fprint(l, "ERROR: third\n")
	if got, want := l.Earlier(), []string{"ERROR: first", "FATAL: second"}; !slices.Equal(got, want) {
		t.Errorf("Earlier = %q, want %q", got, want)
	}
	if got, want := l.Said(), []string{"ERROR: first", "FATAL: second", "…", "advice 8", "advice 9", "ERROR: third"}; !slices.Equal(got, want) {
		t.Errorf("Said = %q, want %q", got, want)
	}
	for i := range 10 {
		fmt.Fprintf(l, "ERROR %d\n", i)
	}
	if got := len(l.Earlier()); got != maxErrors {
		t.Errorf("kept %d error lines, want the first %d", got, maxErrors)
	}
}

func TestConcurrent(t *testing.T) {
	l := &Tail{Keep: 4}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 200 {
				fmt.Fprintf(l, "writer %d line %d\n", w, i)
				_ = l.Last()
			}
		})
	}
	wg.Wait()
	for _, s := range l.Last() {
		if !strings.HasPrefix(s, "writer ") || !strings.Contains(s, " line ") {
			t.Errorf("torn line %q", s)
		}
	}
}

// TestSaidQuotesEarlierErrors feeds the real output of a
// mariadb-install-db that failed: its cause comes before twenty lines of
// advice, and the message must quote it.
func TestSaidQuotesEarlierErrors(t *testing.T) {
	out, err := os.ReadFile("testdata/mariadb-install-db-10.11-concurrent-failure.txt")
	if err != nil {
		t.Fatal(err)
	}
	o := NewOutput(0)
	for l := range strings.Lines(string(out)) {
		o.Add(Line{Text: strings.TrimRight(l, "\n")})
	}
	msg := Quote(o.Said(Interleaved))
	for _, want := range []string{
		": ERROR: 1051  Unknown table 'mysql.tmp_user_sys' | 2026-12-01  8:37:24 0 [ERROR] Aborting | … | ",
		"| at https://mariadb.org/jira",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("quote = %s\nwant it to contain %q", msg, want)
		}
	}
	if strings.Contains(msg, "[Warning]") || strings.Contains(msg, "\n") {
		t.Errorf("quote has a warning as an error, or is not one line: %s", msg)
	}

	// An error line still among the last lines is not quoted twice.
	o = NewOutput(0)
	for _, l := range []string{"starting", "FATAL:  could not create lock file", "exiting"} {
		o.Add(Line{Text: l, Stderr: true})
	}
	if got, want := Quote(o.Said(Interleaved)), ": starting | FATAL:  could not create lock file | exiting"; got != want {
		t.Errorf("quote = %q, want %q", got, want)
	}
}

func TestSaidFrom(t *testing.T) {
	o := NewOutput(2)
	o.Add(Line{Text: "  out 1  "})
	o.Add(Line{Text: "out 2"})
	if got := o.Said(StderrOnly); got != nil {
		t.Errorf("StderrOnly with nothing on stderr = %q", got)
	}
	if got, want := o.Said(StderrOrStdout), []string{"out 1", "out 2"}; !slices.Equal(got, want) {
		t.Errorf("StderrOrStdout with nothing on stderr = %q, want stdout's %q", got, want)
	}
	o.Add(Line{Text: "err 1", Stderr: true})
	o.Add(Line{Text: "out 3"})
	for from, want := range map[From][]string{
		StderrOrStdout: {"err 1"},
		StderrOnly:     {"err 1"},
		Interleaved:    {"err 1", "out 3"},
	} {
		if got := o.Said(from); !slices.Equal(got, want) {
			t.Errorf("Said(%d) = %q, want %q", from, got, want)
		}
	}
	if Quote(nil) != "" {
		t.Errorf("Quote(nil) = %q", Quote(nil))
	}
}

func TestReadLines(t *testing.T) {
	long := strings.Repeat("x", maxLine+100)
	in := "one\r\ntwo\n\n" + long + "\nlast without newline"
	var got []string
	readLines(strings.NewReader(in), func(s string) { got = append(got, s) })
	want := []string{"one", "two", "", long[:maxLine], "last without newline"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%.500s", d)
	}
}

func TestStdoutKeepsTheLastMiB(t *testing.T) {
	var s stdout
	line := s.tee(nil)
	line(Line{Text: "first"})
	line(Line{Text: "an error", Stderr: true})
	line(Line{Text: ""})
	line(Line{Text: "last"})
	if got := s.String(); got != "first\n\nlast" {
		t.Errorf("Stdout = %q, want stdout's lines only", got)
	}
	big := strings.Repeat("y", 1000)
	for range 2 * maxStdout / len(big) {
		line(Line{Text: big})
	}
	line(Line{Text: "end"})
	if got := s.String(); len(got) > maxStdout || !strings.HasSuffix(got, "\nend") || strings.HasPrefix(got, "first") {
		t.Errorf("Stdout keeps %d bytes ending %q, want at most the last %d", len(got), got[len(got)-10:], maxStdout)
	}
}
