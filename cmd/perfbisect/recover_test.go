package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/testutil"
	"github.com/perfbisect/perfbisect/probe/journal"
	"github.com/perfbisect/perfbisect/probe/sysinfo"
)

// killedPlaybook changes a loop device's scheduler, then moves the data to
// a tmpfs, in a step long enough to be killed in.
const killedPlaybook = `name: killed
description: A step that changes the host, to be killed in.
workload: {workload: fsync, bs: 4k, file_size: 8MiB, sync: fdatasync}
duration: 60s
warmup: 1s
steps:
  - id: changed
    title: Scheduler and tmpfs
    hypothesis: The disk is the bottleneck.
    reproduce: true
    knobs:
      - knob: scheduler
        with: {value: %s}
      - knob: tmpfs
        with: {size: 64m}
    persists: {conclude: "not the disk"}
    gone: {conclude: "the disk"}
`

// TestKilledThenRecovered: perfbisect killed with SIGKILL in a step that
// mounted a tmpfs and changed a scheduler leaves both, and its journal
// says so; a new walk refuses to start, naming recover; recover --dry-run
// changes nothing; recover --yes puts both back and empties the journal;
// the dead log's report says NOT PUT BACK.
func TestKilledThenRecovered(t *testing.T) {
	testutil.RequireRoot(t)
	bin := binary(t)
	dev, mnt := testutil.LoopExt4(t, 64<<20)
	queue, was, to := testutil.OtherScheduler(t, dev)
	data := filepath.Join(mnt, "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pb := filepath.Join(dir, "killed.yaml")
	if err := os.WriteFile(pb, []byte(fmt.Sprintf(killedPlaybook, to)), 0o600); err != nil {
		t.Fatal(err)
	}
	// A journal of the test's own: a failure here must not stop every
	// other walk on the machine.
	jdir := filepath.Join(dir, "journal")
	env := append(os.Environ(), journal.DirEnv+"="+jdir)
	perfbisect := func(args ...string) (int, string) {
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		out, _ := cmd.CombinedOutput()
		return cmd.ProcessState.ExitCode(), string(out)
	}
	t.Cleanup(func() { perfbisect("recover", "--yes") })

	rec := filepath.Join(dir, "walk.jsonl")
	cmd := exec.Command(bin, "run", "--no-tui", "--yes", "--playbook", pb, "--dir", data, "--record", rec)
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	waitUntil(t, 60*time.Second, "a second measured on the tmpfs", func() (bool, string) {
		b, _ := os.ReadFile(rec)
		return strings.Contains(string(b), `"type":"sample"`), fmt.Sprintf("%d bytes of log", len(b))
	})
	cmd.Process.Kill()
	cmd.Wait()
	t.Logf("the walk, killed:\n%s", out.String())

	mount := tmpfsMount(t)
	if mount == "" {
		t.Fatal("no tmpfs left mounted after kill -9")
	}
	if now, _, _ := sysinfo.ReadScheduler(queue); now != to {
		t.Fatalf("scheduler %s after kill -9, want %s still", now, to)
	}
	entries := func() []journal.Entry {
		es, bad, err := journal.Read(jdir)
		if err != nil || len(bad) > 0 {
			t.Fatalf("journal: %v %v", err, bad)
		}
		return es
	}
	es := entries()
	if len(es) != 2 || es[0].Session != rec || es[0].Live() || es[1].Live() {
		t.Fatalf("journal after kill -9: %+v, want the two dead changes of %s", es, rec)
	}
	var knobs []string
	for _, e := range es {
		knobs = append(knobs, e.Knob)
	}
	if slices.Sort(knobs); !slices.Equal(knobs, []string{"scheduler", "tmpfs"}) {
		t.Errorf("journal lists %v", knobs)
	}

	// A new walk refuses before it makes a log.
	again := filepath.Join(dir, "again.jsonl")
	code, said := perfbisect("run", "--no-tui", "--yes", "--playbook", pb, "--dir", data, "--record", again)
	if code != exitUsage || !strings.Contains(said, "perfbisect recover") || !strings.Contains(said, mount) || !strings.Contains(said, rec) {
		t.Errorf("a new walk: exit %d, said:\n%s\nwant 2, naming recover, %s and %s", code, said, mount, rec)
	}
	if _, err := os.Stat(again); !os.IsNotExist(err) {
		t.Errorf("the refused walk made a log (%v)", err)
	}

	code, said = perfbisect("recover", "--dry-run")
	if code != 0 || !strings.Contains(said, "umount "+mount) || !strings.Contains(said, "nothing was done") {
		t.Errorf("recover --dry-run: exit %d, said:\n%s", code, said)
	}
	if tmpfsMount(t) != mount || len(entries()) != 2 {
		t.Error("recover --dry-run changed something")
	}
	if now, _, _ := sysinfo.ReadScheduler(queue); now != to {
		t.Errorf("recover --dry-run set the scheduler to %s", now)
	}

	begin := time.Now()
	code, said = perfbisect("recover", "--yes")
	t.Logf("recover --yes took %v:\n%s", time.Since(begin), said)
	if code != 0 || strings.Count(said, "put back: ") != 2 {
		t.Errorf("recover --yes: exit %d, said:\n%s", code, said)
	}
	if m := tmpfsMount(t); m != "" {
		t.Errorf("tmpfs still mounted on %s after recover", m)
	}
	if _, err := os.Stat(mount); !os.IsNotExist(err) {
		t.Errorf("mount point %s left (%v)", mount, err)
	}
	if now, _, _ := sysinfo.ReadScheduler(queue); now != was {
		t.Errorf("scheduler %s after recover, want %s", now, was)
	}
	if es := entries(); len(es) != 0 {
		t.Errorf("journal after recover: %+v", es)
	}
	if code, said = perfbisect("recover"); code != 0 || !strings.Contains(said, "nothing to recover") {
		t.Errorf("recover with nothing left: exit %d, said %s", code, said)
	}

	code, said = perfbisect("report", rec)
	if code != 0 || !strings.Contains(said, "**NOT PUT BACK** tmpfs size=64m") || !strings.Contains(said, "NOT PUT BACK** scheduler") || !strings.Contains(said, "perfbisect recover") {
		t.Errorf("report of the dead log: exit %d:\n%s", code, said)
	}
}
