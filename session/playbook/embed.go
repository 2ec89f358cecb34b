package playbook

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/perfbisect/perfbisect/probe/knob"
)

// The playbooks built into the binary: playbooks/NAME.yaml holds the
// playbook called NAME.
//
//go:embed playbooks/*.yaml
var builtin embed.FS

// names lists the built-in playbooks, sorted.
func names() []string {
	entries, _ := fs.ReadDir(builtin, "playbooks") // sorted by file name
	var out []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".yaml"); ok {
			out = append(out, name)
		}
	}
	return out
}

// Source is the YAML text of the built-in playbook called name, as
// `perfbisect playbooks show NAME` prints it, to copy and edit.
func Source(name string) ([]byte, error) {
	b, err := builtin.ReadFile("playbooks/" + name + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("no built-in playbook %q (built in: %s)", name, strings.Join(names(), ", "))
	}
	return b, nil
}

// ErrNotFound is in Load's error when name is neither a file nor a built-in
// playbook.
var ErrNotFound = errors.New("no such file")

// Load takes the playbook in the file at name when there is one, else the
// built-in playbook called name, with the real knobs.
func Load(name string) (*Playbook, error) {
	if st, err := os.Stat(name); err == nil && !st.IsDir() {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		return Parse(name, data, nil)
	}
	pb, err := Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w, and %v", name, ErrNotFound, err)
	}
	return pb, nil
}

// Lookup parses the built-in playbook called name, with the real knobs.
func Lookup(name string) (*Playbook, error) {
	return lookup(name, nil)
}

func lookup(name string, checkKnob func(string, knob.Settings) error) (*Playbook, error) {
	src, err := Source(name)
	if err != nil {
		return nil, err
	}
	p, err := Parse("embedded:"+name, src, checkKnob)
	if err != nil {
		return nil, err
	}
	if p.Name != name {
		return nil, fmt.Errorf("embedded:%s: the playbook is called %q: a built-in playbook's name is its file's", name, p.Name)
	}
	return p, nil
}

// Embedded parses every built-in playbook, sorted by name. They are part of
// the binary and the tests check them, so one that does not parse is a
// bug in perfbisect: Embedded panics.
func Embedded() []*Playbook {
	ps, err := embedded(nil)
	if err != nil {
		panic("playbook: built-in playbook does not parse: " + err.Error())
	}
	return ps
}

func embedded(checkKnob func(string, knob.Settings) error) ([]*Playbook, error) {
	var ps []*Playbook
	for _, name := range names() { // sorted, and each playbook's name is its file's
		p, err := lookup(name, checkKnob)
		if err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	return ps, nil
}
