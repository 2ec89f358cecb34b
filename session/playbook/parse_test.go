package playbook

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/knob"
)

// knobNames are the knobs perfbisect has; fakeKnobs stands in for the real
// registry, which is written separately.
var knobNames = []string{"tmpfs", "fsync", "scheduler", "sysctl", "mount-options", "shell", "manual", "volume-type", "image", "host"}

func fakeKnobs(name string, s knob.Settings) error {
	if !slices.Contains(knobNames, name) {
		return fmt.Errorf("unknown knob %q (knobs: %s)", name, strings.Join(knobNames, ", "))
	}
	if name == "tmpfs" {
		for k, v := range s {
			if k != "size" {
				return fmt.Errorf("tmpfs: unknown setting %q (settings: size)", k)
			}
			if _, err := probe.ParseSize(v); err != nil {
				return fmt.Errorf("tmpfs: %v", err)
			}
		}
	}
	return nil
}

// base is a small valid playbook; the error cases edit one or two of its
// lines, so their positions are easy to check by eye.
const base = `name: t
steps:
  - id: reproduce
    title: Reproduce
    hypothesis: It shows here.
    reproduce: true
    persists: tmpfs
    gone: {conclude: Not reproduced.}
  - id: tmpfs
    title: On tmpfs
    hypothesis: The disk is slow.
    knobs:
      - knob: tmpfs
        with: {size: 1g}
    persists: {conclude: Not the disk.}
    gone: {conclude: The disk.}
`

// edit replaces each old text of base (which must be there) by its new one.
func edit(t *testing.T, oldNew ...string) string {
	t.Helper()
	s := base
	for i := 0; i < len(oldNew); i += 2 {
		if !strings.Contains(s, oldNew[i]) {
			t.Fatalf("edit: %q is not in the playbook", oldNew[i])
		}
		s = strings.Replace(s, oldNew[i], oldNew[i+1], 1)
	}
	return s
}

func TestParseBase(t *testing.T) {
	if _, err := Parse("t.yaml", []byte(base), fakeKnobs); err != nil {
		t.Fatal(err)
	}
}

func TestParseErrors(t *testing.T) {
	// The cases edit base with the test's t: a text that is not there
	// fails the test at once.
	uu := map[string]struct {
		yaml string
		at   string // line:column
		want string // in the message
	}{
		// YAML itself.
		"syntax":               {"name: t\nsteps: [\n", "2:8", "sequence end token ']' not found"},
		"colon in plain text":  {edit(t, "title: Reproduce\n", "title: Reproduce: now\n"), "4:12", `must be quoted, like title: "Data: on tmpfs"`},
		"duplicate key":        {edit(t, "    title: Reproduce\n", "    title: Reproduce\n    title: Again\n"), "5:5", `mapping key "title" already defined at [4:5]`},
		"alias without anchor": {edit(t, "title: On tmpfs", "title: *nope"), "10:12", "alias *nope: no anchor &nope before it"},
		"empty file":           {"", "1:1", "empty playbook"},
		"only comments":        {"# nothing yet\n", "1:1", "empty playbook"},
		"two documents":        {base + "---\nname: u\n", "18:1", "a playbook is one YAML document"},
		"not a mapping":        {"- id: reproduce\n", "1:1", "playbook: want a mapping (key: value lines), found a list"},

		// Unknown fields, at every level.
		"unknown field":          {edit(t, "name: t\n", "name: t\nstepz: 1\n"), "2:1", `playbook: unknown field "stepz" (fields: name, description, workload,`},
		"unknown step field":     {edit(t, "    reproduce: true\n", "    reproduce: true\n    knob: tmpfs\n"), "7:5", `step "reproduce": unknown field "knob" (fields: id, title,`},
		"unknown workload field": {edit(t, "name: t\n", "name: t\nworkload: {blocksize: 4k}\n"), "2:12", `workload: unknown field "blocksize" (fields: workload, dir, bs, file_size, sync, prealloc, threads, keep, test,`},
		"unknown knob field":     {edit(t, "        with:", "        width:"), "14:9", `step "tmpfs": knob: unknown field "width" (fields: knob, with)`},
		"unknown target field":   {edit(t, "{conclude: The disk.}", "{conclusion: The disk.}"), "16:12", `step "tmpfs": gone: unknown field "conclusion" (fields: next, conclude)`},
		"unknown meaning":        {edit(t, "    reproduce: true\n", "    reproduce: true\n    meaning: {fixed: yes}\n"), "7:15", `step "reproduce": meaning: unknown field "fixed" (fields: persists, gone, unavailable)`},

		// Bad values.
		"bad size":                {edit(t, "name: t\n", "name: t\nworkload: {bs: 4x}\n"), "2:16", `workload.bs: size "4x": unknown unit "x"`},
		"bad threads":             {edit(t, "name: t\n", "name: t\nworkload: {threads: many}\n"), "2:21", `workload.threads: want a whole number, found "many"`},
		"workload not a mapping":  {edit(t, "name: t\n", "name: t\nworkload: fsync\n"), "2:11", `workload: want a mapping (key: value lines), found "fsync"`},
		"workload duration":       {edit(t, "name: t\n", "name: t\nworkload: {duration: 5s}\n"), "2:12", "workload.duration: a step runs for the playbook's duration"},
		"workload invalid":        {edit(t, "name: t\n", "name: t\nworkload:\n  bs: 4k\n  threads: 0\n"), "4:12", "workload: --threads 0: want 1 to"},
		"workload invalid kind":   {edit(t, "name: t\n", "name: t\nworkload: {workload: sysbenchx}\n"), "2:22", `workload: workload "sysbenchx": want one of fsync, sysbench, pgbench, fio, command`},
		"bad duration":            {edit(t, "name: t\n", "name: t\nduration: 20\n"), "2:11", `duration: duration "20": want a number with a unit, like 30s or 2m`},
		"short duration":          {edit(t, "name: t\n", "name: t\nduration: 500ms\n"), "2:11", "duration 500ms: want at least 1s (samples are one second each)"},
		"bad step duration":       {edit(t, "    reproduce: true\n", "    reproduce: true\n    duration: soon\n"), "7:15", `step "reproduce": duration: duration "soon"`},
		"negative warmup":         {edit(t, "name: t\n", "name: t\nwarmup: -1s\n"), "2:9", "warmup -1s: want 0s or more"},
		"threshold without unit":  {edit(t, "name: t\n", "name: t\nthreshold: 10\n"), "2:12", "threshold 10: want a relative change between 0 and 1, like 10% or 0.1"},
		"threshold over 100%":     {edit(t, "name: t\n", "name: t\nthreshold: 150%\n"), "2:12", "threshold 150%: want a relative change"},
		"threshold not a number":  {edit(t, "name: t\n", "name: t\nthreshold: some\n"), "2:12", "threshold some: want"},
		"bad metric":              {edit(t, "name: t\n", "name: t\nmetric: p42_ms\n"), "2:9", `metric "p42_ms": want one of p50_ms, p95_ms, p99_ms, max_ms, avg_ms, ops_per_s, mib_per_s`},
		"title is a mapping":      {edit(t, "title: Reproduce\n", "title: {a: b}\n"), "4:12", `step "reproduce": title: want text, found a mapping`},
		"title on two lines":      {edit(t, "title: Reproduce\n", "title: |\n      Two\n      lines\n"), "4:12", `step "reproduce": title: want one line of text`},
		"reproduce not a boolean": {edit(t, "reproduce: true", "reproduce: yes please"), "6:16", `step "reproduce": reproduce: want true or false, found "yes please"`},
		"bad id":                  {edit(t, "  - id: tmpfs\n", "  - id: on tmpfs\n"), "9:9", `step 2: id "on tmpfs": use letters, digits`},
		"steps not a list":        {"name: t\nsteps: {id: a}\n", "2:8", "steps: want a list of steps"},
		"step not a mapping":      {"name: t\nsteps:\n  - reproduce\n", "3:5", `step 1: want a mapping (key: value lines), found "reproduce"`},
		"knobs not a list":        {edit(t, "    knobs:\n      - knob: tmpfs\n        with: {size: 1g}\n", "    knobs: tmpfs\n"), "12:12", `step "tmpfs": knobs: want a list`},
		"setting not a value":     {edit(t, "{size: 1g}", "{size: [1g]}"), "14:22", `step "tmpfs": with.size: want a single value, found a list`},

		// Required fields.
		"missing name":       {edit(t, "name: t\n", "description: d\n"), "1:1", "missing name"},
		"missing steps":      {"name: t\n", "1:1", "missing steps"},
		"no steps":           {"name: t\nsteps: []\n", "2:8", "steps: no steps"},
		"missing id":         {edit(t, "  - id: tmpfs\n    title: On tmpfs\n", "  - title: On tmpfs\n"), "9:5", "step 2: missing id"},
		"missing title":      {edit(t, "    title: On tmpfs\n", ""), "9:9", `step "tmpfs": missing title`},
		"empty title":        {edit(t, "    title: On tmpfs\n", "    title: \"\"\n"), "9:9", `step "tmpfs": missing title`},
		"missing hypothesis": {edit(t, "    hypothesis: It shows here.\n", ""), "3:9", `step "reproduce": missing hypothesis`},
		"missing gone":       {edit(t, "    gone: {conclude: Not reproduced.}\n", ""), "3:9", `step "reproduce": missing gone`},
		"missing knob name":  {edit(t, "      - knob: tmpfs\n        with:", "      - with:"), "13:9", `step "tmpfs": missing knob`},

		// Steps and targets.
		"duplicate id":                  {edit(t, "  - id: tmpfs\n", "  - id: reproduce\n"), "9:9", `duplicate step id "reproduce" (first on line 3)`},
		"no such step":                  {edit(t, "persists: tmpfs", "persists: tmpfz"), "7:15", `step "reproduce": persists: no step "tmpfz" (steps: reproduce, tmpfs)`},
		"no such next step":             {edit(t, "persists: tmpfs", "persists: {next: tmpfz}"), "7:22", `step "reproduce": persists: no step "tmpfz"`},
		"no such unavailable step":      {edit(t, "    persists: tmpfs\n", "    persists: tmpfs\n    unavailable: image\n"), "8:18", `step "reproduce": unavailable: no step "image" (steps: reproduce, tmpfs)`},
		"next and conclude":             {edit(t, "    gone: {conclude: The disk.}", "    gone: {next: reproduce, conclude: The disk.}"), "16:11", `step "tmpfs": gone: give next or conclude, not both`},
		"neither next nor conclude":     {edit(t, "    gone: {conclude: The disk.}", "    gone: {}"), "16:11", `step "tmpfs": gone: give next or conclude`},
		"empty target":                  {edit(t, "    gone: {conclude: The disk.}", "    gone:"), "16:5", `step "tmpfs": gone: say where to go`},
		"empty conclusion":              {edit(t, "{conclude: The disk.}", "{conclude: \"\"}"), "16:22", `step "tmpfs": gone: conclude: want the sentence`},
		"unknown knob":                  {edit(t, "knob: tmpfs", "knob: ramdisk"), "13:15", `step "tmpfs": unknown knob "ramdisk" (knobs: tmpfs, fsync,`},
		"bad knob setting":              {edit(t, "{size: 1g}", "{size: 1x}"), "14:22", `step "tmpfs": tmpfs: size "1x": unknown unit "x"`},
		"unknown knob setting":          {edit(t, "{size: 1g}", "{size: 1g, sise: 2g}"), "14:32", `step "tmpfs": tmpfs: unknown setting "sise" (settings: size)`},
		"cycle":                         {edit(t, "    gone: {conclude: The disk.}", "    gone: reproduce"), "16:11", `step "tmpfs": gone: the walk goes round in a circle: reproduce -> tmpfs -> reproduce`},
		"step leads to itself":          {edit(t, "    gone: {conclude: The disk.}", "    gone: tmpfs"), "16:11", "circle: tmpfs -> tmpfs"},
		"unreachable":                   {edit(t, "persists: tmpfs", "persists: {conclude: Stop.}"), "9:9", `step "tmpfs" is never reached: no persists, gone or unavailable leads to it from "reproduce"`},
		"no reproduce step":             {edit(t, "    reproduce: true\n", ""), "3:9", `step "reproduce": the first step must reproduce the regression (reproduce: true)`},
		"first step does not reproduce": {edit(t, "reproduce: true", "reproduce: false"), "6:16", "the first step must reproduce the regression"},
		"reproduce not first":           {edit(t, "    hypothesis: The disk is slow.\n", "    hypothesis: The disk is slow.\n    reproduce: true\n"), "12:16", `step "tmpfs": reproduce: only the first step reproduces the regression (step "reproduce" is first)`},
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) {
			p, err := Parse("t.yaml", []byte(u.yaml), fakeKnobs)
			if err == nil {
				t.Fatalf("parsed, want an error at %s with %q; got %+v", u.at, u.want, p)
			}
			e, ok := err.(*Error)
			if !ok {
				t.Fatalf("error is a %T, want *Error: %v", err, err)
			}
			if got := fmt.Sprintf("%d:%d", e.Line, e.Column); got != u.at {
				t.Errorf("at %s, want %s: %v", got, u.at, err)
			}
			if !strings.Contains(e.Msg, u.want) {
				t.Errorf("message %q does not hold %q", e.Msg, u.want)
			}
			if prefix := "t.yaml:" + u.at + ": "; !strings.HasPrefix(err.Error(), prefix) && e.Line > 0 {
				t.Errorf("Error() = %q, want it to start with %q", err.Error(), prefix)
			}
		})
	}
}

func TestErrorString(t *testing.T) {
	e := &Error{File: "pb.yaml", Line: 3, Column: 7, Msg: "bad"}
	if got, want := e.Error(), "pb.yaml:3:7: bad"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	var err error = e
	var pe *Error
	if !errors.As(err, &pe) {
		t.Error("errors.As fails")
	}
}

// An SRE's playbook may share settings with anchors, aliases and merge
// keys; the values are read through them.
func TestParseAnchors(t *testing.T) {
	src := `name: anchors
workload: &w {bs: 8k}
steps:
  - id: reproduce
    title: Reproduce
    hypothesis: It shows here.
    reproduce: true
    persists: tmpfs
    gone: &stop {conclude: Not reproduced.}
  - &common
    id: tmpfs
    title: On tmpfs
    hypothesis: The disk is slow.
    knobs:
      - knob: tmpfs
        with: &size {size: 2g}
    persists: other
    gone: *stop
  - <<: *common
    id: other
    title: Other
    knobs:
      - knob: shell
        with: {apply: "echo 1 > /proc/x", mode: off, iops: 3000, fast: true}
    persists: {conclude: Done.}
`
	p, err := Parse("a.yaml", []byte(src), fakeKnobs)
	if err != nil {
		t.Fatal(err)
	}
	if p.Workload.BS != 8*probe.KiB {
		t.Errorf("bs = %v", p.Workload.BS)
	}
	s, ok := p.Step("other")
	if !ok {
		t.Fatal("no step other")
	}
	if s.Title != "Other" || s.Hypothesis != "The disk is slow." || s.Gone.Conclude != "Not reproduced." || s.Persists.Conclude != "Done." {
		t.Errorf("merged step = %+v", s)
	}
	want := knob.Settings{"apply": "echo 1 > /proc/x", "mode": "off", "iops": "3000", "fast": "true"}
	if len(s.Knobs) != 1 || fmt.Sprint(s.Knobs[0].With) != fmt.Sprint(want) {
		t.Errorf("settings = %+v, want %v (as written)", s.Knobs, want)
	}
}
