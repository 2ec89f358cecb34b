package proc

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"regexp"
	"strings"
	"sync"
)

const (
	// maxErrors is how many error lines a Tail keeps besides its last ones.
	maxErrors = 5
	// maxKept cuts a kept line; Cmd.Line receives it whole.
	maxKept = 500
	// maxPartial is how long a line without an end may grow in a Tail
	// before it is taken as a line.
	maxPartial = 64 << 10
	// maxLine cuts a line of output read from a program.
	maxLine = 1 << 20
)

// errorLine matches how programs report errors: MariaDB/MySQL ("[ERROR]",
// "ERROR 1051", "ERROR:"), PostgreSQL and sysbench ("FATAL:", "PANIC:"),
// "initdb: error:", and shell scripts.
var errorLine = regexp.MustCompile(`\[ERROR\]|^ERROR\b|\b(FATAL|PANIC):|^[\w.-]+: error:`)

// Tail is an io.Writer that keeps the last Keep non-blank lines written to
// it (and the unfinished one), each cut to 500 bytes, and the first five
// that look like errors wherever they came: a chatty program cannot grow
// memory, and its last words (usually the error) are kept, as is a cause
// printed before twenty lines of advice. Set Keep before the first write;
// Tail is then safe for concurrent use, and its Write never fails.
type Tail struct {
	Keep int // DefaultKeep when 0

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

func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.partial = append(t.partial, p...)
	rest := t.partial
	for {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			break
		}
		t.add(string(rest[:i]))
		rest = rest[i+1:]
	}
	if len(rest) > maxPartial {
		t.add(string(rest))
		rest = nil
	}
	t.partial = append(t.partial[:0], rest...)
	return len(p), nil
}

// Add adds one whole line.
func (t *Tail) Add(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.add(line)
}

func (t *Tail) add(line string) {
	line = strings.TrimRight(line, "\r")
	if strings.TrimSpace(line) == "" {
		return
	}
	line = cut(line)
	if len(t.errs) < maxErrors && errorLine.MatchString(line) {
		t.errs = append(t.errs, numbered{t.n, line})
	}
	if t.ring == nil {
		t.ring = make([]string, t.keep())
	}
	t.ring[t.n%len(t.ring)] = line
	t.n++
}

func (t *Tail) keep() int {
	if t.Keep > 0 {
		return t.Keep
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
func (t *Tail) first() int {
	room := t.keep()
	if strings.TrimSpace(string(t.partial)) != "" {
		room--
	}
	return max(0, t.n-room)
}

// Last returns the last lines kept, the unfinished one last, at most Keep.
func (t *Tail) Last() []string { return t.locked(t.last) }

func (t *Tail) last() []string {
	var out []string
	for i := t.first(); i < t.n; i++ {
		out = append(out, t.ring[i%len(t.ring)])
	}
	if p := strings.TrimRight(string(t.partial), "\r"); strings.TrimSpace(p) != "" {
		out = append(out, cut(p))
	}
	return out
}

// Earlier returns the lines that looked like errors before those Last
// returns.
func (t *Tail) Earlier() []string { return t.locked(t.earlier) }

func (t *Tail) earlier() []string {
	var out []string
	for _, e := range t.errs {
		if e.n < t.first() {
			out = append(out, e.line)
		}
	}
	return out
}

// locked is what f reads with t held. last and earlier take no lock of
// their own, so that Said reads both under one.
func (t *Tail) locked(f func() []string) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return f()
}

// String is Last, a line each.
func (t *Tail) String() string { return strings.Join(t.Last(), "\n") }

// Said is what a message quotes of the tail: the earlier error lines, "…",
// then the last lines, each trimmed; nil when nothing was said.
func (t *Tail) Said() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	last := t.last()
	if len(last) == 0 {
		return nil
	}
	var out []string
	if e := t.earlier(); len(e) > 0 {
		out = append(e, "…")
	}
	out = append(out, last...)
	for i, l := range out {
		out[i] = strings.TrimSpace(l)
	}
	return out
}

// Output keeps what a program said, for its messages: the last lines of
// its stderr, of its stdout, and of both as they came.
type Output struct {
	stdout, stderr, both Tail
}

// NewOutput keeps keep lines of each (DefaultKeep when 0).
func NewOutput(keep int) *Output {
	o := &Output{}
	o.stdout.Keep, o.stderr.Keep, o.both.Keep = keep, keep, keep
	return o
}

// Add keeps a line.
func (o *Output) Add(l Line) {
	if l.Stderr {
		o.stderr.Add(l.Text)
	} else {
		o.stdout.Add(l.Text)
	}
	o.both.Add(l.Text)
}

// Said is what a message quotes (see Tail.Said) of the output q names.
func (o *Output) Said(q From) []string {
	switch q {
	case Interleaved:
		return o.both.Said()
	case StderrOnly:
		return o.stderr.Said()
	}
	if s := o.stderr.Said(); len(s) > 0 {
		return s
	}
	return o.stdout.Said()
}

// Quote is ": " and the lines said, on one line ("a | b | c"); "" when
// nothing was said.
func Quote(said []string) string {
	if len(said) == 0 {
		return ""
	}
	return ": " + strings.Join(said, " | ")
}

// readLines calls fn with each line of r, without its newline, and with the
// last line even if it has none. A line longer than maxLine is cut there.
func readLines(r io.Reader, fn func(string)) {
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte
	for {
		chunk, err := br.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			if len(long) < maxLine {
				long = append(long, chunk[:min(len(chunk), maxLine-len(long))]...)
			}
			continue
		case len(long) > 0:
			if len(long) < maxLine {
				long = append(long, chunk[:min(len(chunk), maxLine-len(long))]...)
			}
			fn(strings.TrimRight(string(long), "\r\n"))
			long = long[:0]
		case len(chunk) > 0:
			fn(strings.TrimRight(string(chunk), "\r\n"))
		}
		if err != nil {
			return
		}
	}
}
