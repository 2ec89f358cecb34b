// Package jsonl reads JSON Lines as perfbisect writes them — the session
// log, `perfbisect probe --json` output, the agent's stream — with the one
// rule every reader of those streams keeps: every complete line counts, a
// bad line is reported and passed over, and a last line cut short by a
// crash (no newline, not JSON) is reported as torn and ends the stream.
package jsonl

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// SyntaxError is a line that could not be read. The reader reports it and
// goes on with the next line.
type SyntaxError struct {
	Line int
	Torn bool // the last line of the stream, cut short without a newline (a crash mid-write)
	Err  error
}

func (e *SyntaxError) Error() string {
	if e.Torn {
		return fmt.Sprintf("line %d: cut short (the file ends mid-line, as after a crash), ignored", e.Line)
	}
	return fmt.Sprintf("line %d: %v", e.Line, e.Err)
}

func (e *SyntaxError) Unwrap() error { return e.Err }

// Scanner yields the non-blank lines of a stream, in the bufio.Scanner
// shape; a line has no length limit. A caller that cannot use a line says
// so with Bad, which records it and keeps the scan going.
//
//	for s.Scan() {
//		if err := use(s.Bytes()); err != nil {
//			s.Bad(err)
//		}
//	}
type Scanner struct {
	r    *bufio.Reader
	line int
	text []byte
	last bool // the current line ended the stream without a newline
	bad  []*SyntaxError
	err  error
}

// NewScanner reads r.
func NewScanner(r io.Reader) *Scanner { return &Scanner{r: bufio.NewReaderSize(r, 64<<10)} }

// Scan advances to the next non-blank line. It is false at the end of the
// stream, after a read error, and after a torn last line.
func (s *Scanner) Scan() bool {
	for s.err == nil && !s.last {
		b, err := s.r.ReadBytes('\n')
		if err != nil && err != io.EOF {
			s.err = err
			return false
		}
		if len(b) == 0 {
			return false
		}
		s.line++
		s.last = err == io.EOF
		if b = bytes.TrimSpace(b); len(b) > 0 {
			s.text = b
			return true
		}
	}
	return false
}

// Bytes is the current line, without its newline; it is valid until the
// next Scan.
func (s *Scanner) Bytes() []byte { return s.text }

// Bad records that the current line could not be used because of err. The
// last line of a stream that has no newline is torn: a crash cut it short.
func (s *Scanner) Bad(err error) {
	s.bad = append(s.bad, &SyntaxError{Line: s.line, Torn: s.last, Err: err})
}

// BadLines lists the lines Bad recorded, the torn tail included.
func (s *Scanner) BadLines() []*SyntaxError { return s.bad }

// Err is a read error of the underlying stream (not a bad line).
func (s *Scanner) Err() error { return s.err }
