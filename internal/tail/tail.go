// Package tail keeps the last lines of a program's output for an error
// message: a chatty program cannot grow memory, and its last words (usually
// the error) are kept, with, optionally, the first lines that look like
// errors wherever they came.
package tail

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"sync"
)

const (
	// DefaultKeep is how many lines a Lines with Keep 0 keeps.
	DefaultKeep = 10
	// maxErrors is how many error lines are kept besides the last ones.
	maxErrors = 5
	// maxKept cuts a kept line; what Out receives is whole.
	maxKept = 500
	// maxPartial is how long a line without an end may grow before it is
	// taken as a line.
	maxPartial = 64 << 10
)

// Lines is an io.Writer that keeps the last Keep non-blank lines written to
// it (and the unfinished one), each cut to 500 bytes. When Out is set,
// every line is passed on to it whole as it completes. When Errors is set,
// the first five lines it matches are kept too. Set the fields before the
// first write; Lines is then safe for concurrent use, and its Write never
// fails, so a failing Out cannot fail the program writing.
type Lines struct {
	Keep   int
	Out    io.Writer
	Errors *regexp.Regexp

	mu      sync.Mutex
	ring    []string
	n       int // kept lines so far
	partial []byte
	errs    []numbered
}

type numbered struct {
	n    int
	line string
}

func (l *Lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.partial = append(l.partial, p...)
	rest := l.partial
	for {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			break
		}
		l.add(string(rest[:i]))
		rest = rest[i+1:]
	}
	if len(rest) > maxPartial {
		l.add(string(rest))
		rest = nil
	}
	l.partial = append(l.partial[:0], rest...)
	return len(p), nil
}

// Add adds one whole line.
func (l *Lines) Add(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.add(line)
}

func (l *Lines) add(line string) {
	line = strings.TrimRight(line, "\r")
	if l.Out != nil {
		_, _ = io.WriteString(l.Out, line+"\n")
	}
	if strings.TrimSpace(line) == "" {
		return
	}
	line = cut(line)
	if l.Errors != nil && len(l.errs) < maxErrors && l.Errors.MatchString(line) {
		l.errs = append(l.errs, numbered{l.n, line})
	}
	if l.ring == nil {
		l.ring = make([]string, l.keep())
	}
	l.ring[l.n%len(l.ring)] = line
	l.n++
}

func (l *Lines) keep() int {
	if l.Keep > 0 {
		return l.Keep
	}
	return DefaultKeep
}

// cut bounds a kept line; bytes that are not UTF-8 (a character the cut
// split included) become "?".
func cut(s string) string {
	if len(s) <= maxKept {
		return strings.ToValidUTF8(s, "?")
	}
	return strings.ToValidUTF8(s[:maxKept], "?") + "…"
}

// first is the number of the first kept line Last returns.
func (l *Lines) first() int {
	room := l.keep()
	if strings.TrimSpace(string(l.partial)) != "" {
		room--
	}
	return max(0, l.n-room)
}

// Last returns the last lines kept, the unfinished one last, at most Keep.
func (l *Lines) Last() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for i := l.first(); i < l.n; i++ {
		out = append(out, l.ring[i%len(l.ring)])
	}
	if p := strings.TrimRight(string(l.partial), "\r"); strings.TrimSpace(p) != "" {
		out = append(out, cut(p))
	}
	return out
}

// Earlier returns the lines that matched Errors before those Last returns.
func (l *Lines) Earlier() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, e := range l.errs {
		if e.n < l.first() {
			out = append(out, e.line)
		}
	}
	return out
}

// String is Last, a line each.
func (l *Lines) String() string { return strings.Join(l.Last(), "\n") }

// Empty reports whether no non-blank line was written.
func (l *Lines) Empty() bool { return len(l.Last()) == 0 }
