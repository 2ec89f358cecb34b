package report

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/perfbisect/perfbisect/session"
)

// Valid says whether f is one of Formats.
func (f Format) Valid() bool { return slices.Contains(Formats, f) }

// WriteFile renders the report in memory, then writes it to path whole, so
// a failed rendering leaves no half-written report.
func (r *Report) WriteFile(path string, f Format) error {
	var b bytes.Buffer
	if err := r.Write(&b, f); err != nil {
		return err
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// WriteBeside writes the report of the session log at logPath next to it,
// in every format (walk.jsonl: walk.md, walk.html, walk.json). It returns
// the report (nil when the log cannot be read), the paths written, and what
// went wrong, one error per file: a format that fails does not stop the
// others.
func WriteBeside(logPath string) (*Report, []string, []error) {
	evs, bad, err := session.ReadLogFile(logPath)
	if err != nil {
		return nil, nil, []error{err}
	}
	r := Build(evs, bad)
	base := strings.TrimSuffix(logPath, ".jsonl")
	var paths []string
	var errs []error
	for _, f := range Formats {
		p := base + "." + string(f)
		if err := r.WriteFile(p, f); err != nil {
			errs = append(errs, err)
			continue
		}
		paths = append(paths, p)
	}
	return r, paths, errs
}
