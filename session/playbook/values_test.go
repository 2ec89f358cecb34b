package playbook

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/knob"
)

func TestParseDefaults(t *testing.T) {
	src := edit(t, "    reproduce: true\n", "    reproduce: true\n    duration: 45s\n")
	p, err := Parse("t.yaml", []byte(src), fakeKnobs)
	if err != nil {
		t.Fatal(err)
	}
	want := probe.DefaultSpec()
	want.Duration = probe.Duration(20 * time.Second)
	if p.Workload != want {
		t.Errorf("Workload = %+v, want %+v", p.Workload, want)
	}
	if p.Duration != probe.Duration(20*time.Second) || p.Warmup != probe.Duration(2*time.Second) {
		t.Errorf("Duration, Warmup = %v, %v; want 20s, 2s", p.Duration, p.Warmup)
	}
	if p.Threshold != 0.10 || p.Metric != "p50_ms" {
		t.Errorf("Threshold, Metric = %v, %q; want 0.1, p50_ms", p.Threshold, p.Metric)
	}
	if p.Source != "t.yaml" || string(p.YAML) != src {
		t.Errorf("Source %q, YAML %q: want the file and its text", p.Source, p.YAML)
	}
	if p.Steps[0].Duration != probe.Duration(45*time.Second) || p.Steps[1].Duration != p.Duration {
		t.Errorf("step durations %v, %v; want 45s and the playbook's", p.Steps[0].Duration, p.Steps[1].Duration)
	}
	for _, s := range p.Steps {
		if s.Unavailable != s.Persists {
			t.Errorf("step %s: Unavailable = %v, want the Persists target %v", s.ID, s.Unavailable, s.Persists)
		}
	}
	if p.Steps[0].Knobs != nil || p.Steps[0].Meaning != nil {
		t.Errorf("step without knobs or meaning: %+v", p.Steps[0])
	}
	if got := p.Steps[1].Knobs; !slices.EqualFunc(got, []knob.Use{{Knob: "tmpfs", With: knob.Settings{"size": "1g"}}}, func(a, b knob.Use) bool {
		return a.Knob == b.Knob && fmt.Sprint(a.With) == fmt.Sprint(b.With)
	}) {
		t.Errorf("knobs = %+v", got)
	}
}

func TestParseWorkload(t *testing.T) {
	src := edit(t, "name: t\n", `name: t
description: |
  Two lines
  of description.
workload:
  dir: /var/lib/probe
  bs: 16KiB
  file_size: 1g
  sync: fsync
  prealloc: write
  threads: 4
  keep: true
duration: 1m
warmup: 0s
metric: p99_ms
`)
	p, err := Parse("t.yaml", []byte(src), fakeKnobs)
	if err != nil {
		t.Fatal(err)
	}
	want := probe.Spec{Workload: "fsync", Dir: "/var/lib/probe", BS: 16 * probe.KiB, FileSize: probe.GiB,
		Sync: probe.SyncFsync, Prealloc: probe.PreallocWrite, Threads: 4, Duration: probe.Duration(time.Minute), Keep: true}
	if p.Workload != want {
		t.Errorf("Workload = %+v\nwant %+v", p.Workload, want)
	}
	if p.Description != "Two lines\nof description." || p.Warmup != 0 || p.Metric != "p99_ms" {
		t.Errorf("Description %q, Warmup %v, Metric %q", p.Description, p.Warmup, p.Metric)
	}
}

// A database workload in a playbook starts from its kind's defaults,
// whatever order its fields come in, and the fields it sets win.
func TestParseDatabaseWorkload(t *testing.T) {
	src := edit(t, "name: t\n", `name: t
workload:
  threads: 8
  workload: sysbench
  test: oltp_write_only
  db: existing
  db_socket: /run/mysqld/mysqld.sock
  db_user: bench
  db_password_env: BENCH_PW
metric: ops_per_s
`)
	p, err := Parse("t.yaml", []byte(src), fakeKnobs)
	if err != nil {
		t.Fatal(err)
	}
	want := probe.DefaultFor(probe.WorkloadSysbench)
	want.Threads, want.Test, want.DB, want.DBSocket, want.DBUser, want.DBPasswordEnv = 8, "oltp_write_only", "existing", "/run/mysqld/mysqld.sock", "bench", "BENCH_PW"
	want.Duration = p.Duration
	if p.Workload != want {
		t.Errorf("Workload = %+v\nwant %+v", p.Workload, want)
	}
	_, err = Parse("t.yaml", []byte(edit(t, "name: t\n", "name: t\nworkload:\n  workload: pgbench\n  scale: 0\n")), fakeKnobs)
	if err == nil || !strings.Contains(err.Error(), "t.yaml:4:10: workload: --scale 0") {
		t.Errorf("pgbench scale 0: %v, want the error at the scale", err)
	}
}

func TestParseThreshold(t *testing.T) {
	uu := map[string]float64{
		`10%`:   0.10,
		`2.5%`:  0.025,
		`0.1`:   0.1,
		`"0.2"`: 0.2,
		`'5 %'`: 0.05,
	}
	for in, want := range uu {
		t.Run(in, func(t *testing.T) {
			p, err := Parse("t.yaml", []byte(edit(t, "name: t\n", "name: t\nthreshold: "+in+"\n")), fakeKnobs)
			if err != nil {
				t.Fatal(err)
			}
			if d := p.Threshold - want; d > 1e-12 || d < -1e-12 {
				t.Errorf("Threshold = %v, want %v", p.Threshold, want)
			}
		})
	}
}
