package jsonl

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// scanAll reads every line, calling a line bad when it is not a JSON object.
func scanAll(s *Scanner) []string {
	var good []string
	for s.Scan() {
		var v map[string]any
		if err := json.Unmarshal(s.Bytes(), &v); err != nil {
			s.Bad(err)
			continue
		}
		good = append(good, string(s.Bytes()))
	}
	return good
}

func badAt(s *Scanner) []SyntaxError {
	var out []SyntaxError
	for _, b := range s.BadLines() {
		out = append(out, SyntaxError{Line: b.Line, Torn: b.Torn})
	}
	return out
}

func TestLineNumbersCountEveryLine(t *testing.T) {
	in := "\n" +
		`{"a":1}` + "\n" +
		"  \r\n" +
		`{"a":2}` + "\n" +
		`{"a":` + "\n" + // line 5
		"\n" +
		`{"a":3}` + "\n" +
		`{"a` // line 8, torn
	s := NewScanner(strings.NewReader(in))
	if good := scanAll(s); len(good) != 3 {
		t.Errorf("read %v, want 3 lines", good)
	}
	if got, want := badAt(s), []SyntaxError{{Line: 5}, {Line: 8, Torn: true}}; !reflect.DeepEqual(got, want) {
		t.Errorf("bad lines %+v, want %+v", got, want)
	}
	if s.Scan() {
		t.Error("Scan after the end returned true")
	}
}

func TestTornTailIsReportedAndEndsTheStream(t *testing.T) {
	s := NewScanner(strings.NewReader(`{"a":1}` + "\n" + `{"a":2,"b":` /* the writer died here */))
	if good := scanAll(s); !reflect.DeepEqual(good, []string{`{"a":1}`}) {
		t.Errorf("read %v, want the complete line only", good)
	}
	bad := s.BadLines()
	if len(bad) != 1 || bad[0].Line != 2 || !bad[0].Torn {
		t.Fatalf("bad lines %+v, want line 2 torn", bad)
	}
	msg := bad[0].Error()
	if !strings.Contains(msg, "line 2") || !strings.Contains(msg, "cut short") {
		t.Errorf("Error() = %q, want it to say line 2 was cut short", msg)
	}
	var se *json.SyntaxError
	if !errors.As(bad[0], &se) {
		t.Errorf("a torn line's error %v does not unwrap to its cause", bad[0])
	}
}

func TestBadMiddleLineIsNotTorn(t *testing.T) {
	s := NewScanner(strings.NewReader("{\n" + `{"a":2}` + "\n"))
	if good := scanAll(s); len(good) != 1 {
		t.Errorf("read %v, want the line after the bad one", good)
	}
	if got := badAt(s); !reflect.DeepEqual(got, []SyntaxError{{Line: 1}}) {
		t.Errorf("bad lines %+v, want line 1, not torn", got)
	}
	if msg := s.BadLines()[0].Error(); !strings.HasPrefix(msg, "line 1: ") {
		t.Errorf("Error() = %q, want it to start with the line", msg)
	}
}

func TestValidLastLineWithoutNewlineIsKept(t *testing.T) {
	s := NewScanner(strings.NewReader(`{"a":1}` + "\n" + `{"a":2}`))
	if good := scanAll(s); len(good) != 2 || len(s.BadLines()) != 0 {
		t.Errorf("read %v with bad lines %v, want both lines", good, s.BadLines())
	}
}

func TestEmptyInput(t *testing.T) {
	for _, in := range []string{"", "\n", "\n\n  \n", "  "} {
		s := NewScanner(strings.NewReader(in))
		if good := scanAll(s); len(good) != 0 || len(s.BadLines()) != 0 || s.Err() != nil {
			t.Errorf("input %q: lines %v, bad %v, err %v; want none", in, good, s.BadLines(), s.Err())
		}
	}
}

func TestLongLine(t *testing.T) {
	long := `{"a":"` + strings.Repeat("x", 1<<20) + `"}`
	s := NewScanner(strings.NewReader(long + "\n" + `{"a":2}` + "\n"))
	if good := scanAll(s); len(good) != 2 || len(good[0]) != len(long) {
		t.Errorf("read %d lines (the first %d bytes), want the 1 MiB line whole and the next", len(good), len(good[0]))
	}
}

type errReader struct {
	data []byte
	err  error
}

func (r *errReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestReadErrorStopsTheScan(t *testing.T) {
	want := errors.New("connection reset")
	s := NewScanner(&errReader{data: []byte(`{"a":1}` + "\n" + "{\n" + `{"a":2`), err: want})
	if good := scanAll(s); len(good) != 1 {
		t.Errorf("read %v, want only the first line", good)
	}
	if !errors.Is(s.Err(), want) {
		t.Errorf("Err() = %v, want the read error %v", s.Err(), want)
	}
	if got := badAt(s); !reflect.DeepEqual(got, []SyntaxError{{Line: 2}}) {
		t.Errorf("bad lines %+v, want the one bad line before the read error", got)
	}
	if s.Scan() {
		t.Error("Scan after a read error returned true")
	}
}
