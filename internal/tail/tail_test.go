package tail

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
)

func TestLast(t *testing.T) {
	var out strings.Builder
	l := &Lines{Keep: 3, Out: &out}
	fmt.Fprintf(l, "one\r\ntwo\n\n   \nthree\nfo")
	fmt.Fprintf(l, "ur\nfive")
	if got, want := l.Last(), []string{"three", "four", "five"}; !equal(got, want) {
		t.Errorf("Last = %q, want %q", got, want)
	}
	// Out gets every whole line, blank ones included, and not the unfinished one.
	if got, want := out.String(), "one\ntwo\n\n   \nthree\nfour\n"; got != want {
		t.Errorf("Out got %q, want %q", got, want)
	}
	l.Add("six")
	if got, want := l.String(), "four\nsix\nfive"; got != want {
		t.Errorf("after Add: String = %q, want %q (the unfinished line stays last)", got, want)
	}
}

func TestEmptyAndDefault(t *testing.T) {
	l := &Lines{}
	if !l.Empty() || l.String() != "" || l.Last() != nil {
		t.Errorf("a new Lines is not empty: %q", l.Last())
	}
	fmt.Fprint(l, "\n \n\t\r\n")
	if !l.Empty() {
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
	l := &Lines{Keep: 2}
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
	l := &Lines{Keep: 3, Errors: regexp.MustCompile(`ERROR`)}
	fmt.Fprint(l, "start\nERROR: first\nnoise\nERROR: second\n")
	if got := l.Earlier(); len(got) != 0 {
		t.Errorf("Earlier = %q while the errors are still in Last", got)
	}
	for i := range 10 {
		fmt.Fprintf(l, "advice %d\n", i)
	}
	fmt.Fprint(l, "ERROR: third\n")
	if got, want := l.Earlier(), []string{"ERROR: first", "ERROR: second"}; !equal(got, want) {
		t.Errorf("Earlier = %q, want %q", got, want)
	}
	for i := range 10 {
		fmt.Fprintf(l, "ERROR %d\n", i)
	}
	if got := len(l.Earlier()); got != maxErrors {
		t.Errorf("kept %d error lines, want the first %d", got, maxErrors)
	}
}

func TestConcurrent(t *testing.T) {
	l := &Lines{Keep: 4}
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

func equal(a, b []string) bool {
	return strings.Join(a, "\x00") == strings.Join(b, "\x00") && len(a) == len(b)
}
