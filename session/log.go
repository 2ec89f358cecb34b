package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/perfbisect/perfbisect/internal/jsonl"
)

// LogWriter appends events to a session log, one JSON object per line. Each
// line is written whole with one write(2) on an O_APPEND file, so a crash
// can only tear the last line; the log is made durable (fsync) after every
// step's end and the session's end, and by Close.
type LogWriter struct {
	mu   sync.Mutex
	f    *os.File
	path string
	err  error // a write or sync failed: the log ends here
	lost error // the first event that could not be encoded (the log goes on)
}

// CreateLog creates a new log at path; an existing file is never
// overwritten or appended to.
func CreateLog(path string) (*LogWriter, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("session log %s already exists (choose another --record)", path)
		}
		return nil, fmt.Errorf("create session log: %w", err)
	}
	return &LogWriter{f: f, path: path}, nil
}

// Path is the log's file name.
func (w *LogWriter) Path() string { return w.path }

// Write appends one event, and syncs after a step_end or session_end. After
// a write error every later call returns it (Close too). An event that
// cannot be encoded is left out and the log goes on; Close still says so.
func (w *LogWriter) Write(e Event) error {
	b, err := json.Marshal(e)
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		err = fmt.Errorf("encode %s event: %w (left out of %s)", e.Type, err, w.path)
		if w.lost == nil {
			w.lost = err
		}
		return err
	}
	b = append(b, '\n')
	if w.err != nil {
		return w.err
	}
	if _, err := w.f.Write(b); err != nil {
		w.err = fmt.Errorf("write session log %s: %w", w.path, err)
		return w.err
	}
	if e.Type == TypeStepEnd || e.Type == TypeSessionEnd {
		return w.sync()
	}
	return nil
}

// Sync flushes the log to stable storage.
func (w *LogWriter) Sync() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	return w.sync()
}

func (w *LogWriter) sync() error {
	if err := w.f.Sync(); err != nil {
		w.err = fmt.Errorf("sync session log %s: %w", w.path, err)
	}
	return w.err
}

// Close syncs and closes the log.
func (w *LogWriter) Close() error {
	err := w.Sync()
	if cerr := w.f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err == nil {
		err = w.lost
	}
	return err
}

// Reader reads a session log (or `perfbisect probe --json` output) event by
// event, in the bufio.Scanner shape: Scan, Event, Err, BadLines. Every
// complete line is kept; a bad line is recorded as a *jsonl.SyntaxError and
// the scan goes on.
type Reader struct{ *jsonl.Decoder[Event] }

func NewReader(r io.Reader) *Reader {
	return &Reader{jsonl.NewDecoder(r, func(b []byte) (Event, bool, error) {
		var ev Event
		err := json.Unmarshal(b, &ev)
		return ev, err == nil, err
	})}
}

// Event is the event read by the last successful Scan.
func (r *Reader) Event() Event { return r.Value() }

// ReadLogFile reads a whole log. Bad lines do not make it fail: they come
// back for the caller to report (a torn last line is the normal mark of a
// crash).
func ReadLogFile(path string) ([]Event, []*jsonl.SyntaxError, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	r := NewReader(f)
	var evs []Event
	for r.Scan() {
		evs = append(evs, r.Event())
	}
	if r.Err() != nil {
		return evs, r.BadLines(), fmt.Errorf("read %s: %w", path, r.Err())
	}
	return evs, r.BadLines(), nil
}
