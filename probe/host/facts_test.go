package host

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfbisect/perfbisect/internal/testutil"
)

// facts runs localFacts, checks the facts of the machine, which do not
// depend on dir, and logs them all.
func facts(t *testing.T, dir string) Facts {
	t.Helper()
	f, err := localFacts(dir)
	if err != nil {
		t.Fatalf("localFacts(%s): %v", dir, err)
	}
	b, _ := json.MarshalIndent(f, "", "  ")
	t.Logf("facts of %s:\n%s", dir, b)

	host, _ := os.Hostname()
	release, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	switch {
	case f.Hostname != host:
		t.Errorf("hostname = %q, want %q", f.Hostname, host)
	case f.Kernel != strings.TrimSpace(string(release)):
		t.Errorf("kernel = %q, want %q", f.Kernel, release)
	case f.CPUs != runtime.NumCPU():
		t.Errorf("cpus = %d, want %d", f.CPUs, runtime.NumCPU())
	case f.MemoryBytes <= 0:
		t.Errorf("memory_bytes = %d", f.MemoryBytes)
	case f.Root != (os.Geteuid() == 0):
		t.Errorf("root = %v as uid %d", f.Root, os.Geteuid())
	case runtime.GOARCH == "amd64" && f.CPU == "":
		t.Error("no CPU model on x86")
	}
	return f
}

// fsWant is what the facts should say of a data dir's filesystem.
type fsWant struct {
	point, fstype, device string
	options               []string // each in mount_options
}

func checkFS(t *testing.T, f Facts, w fsWant) {
	t.Helper()
	if f.MountPoint != w.point || f.Filesystem != w.fstype || f.Device != w.device {
		t.Errorf("mount %s %s %s, want %s %s %s", f.MountPoint, f.Filesystem, f.Device, w.point, w.fstype, w.device)
	}
	for _, o := range w.options {
		if !strings.Contains(f.MountOptions, o) {
			t.Errorf("mount_options %q, want %q in them", f.MountOptions, o)
		}
	}
	queue := filepath.Join("/sys/block", f.Device, "queue")
	sched, err := os.ReadFile(filepath.Join(queue, "scheduler"))
	if f.Device == "" || err != nil {
		if f.Scheduler != "" || f.Rotational != nil {
			t.Errorf("scheduler %q, rotational %v on %s, which has no queue", f.Scheduler, f.Rotational, f.Device)
		}
		return
	}
	if m := regexp.MustCompile(`\[(\S+)\]`).FindSubmatch(sched); m == nil || f.Scheduler != string(m[1]) {
		t.Errorf("scheduler %q, but %s/scheduler says %q", f.Scheduler, queue, sched)
	}
	rot, _ := os.ReadFile(filepath.Join(queue, "rotational"))
	if f.Rotational == nil || *f.Rotational != (strings.TrimSpace(string(rot)) == "1") {
		t.Errorf("rotational %v, but %s/rotational says %q", f.Rotational, queue, rot)
	}
}

// TestFactsTempDir describes whatever holds the test's temporary directory
// and compares it with what findmnt says.
func TestFactsTempDir(t *testing.T) {
	testutil.RequireTool(t, "findmnt")
	dir := realTempDir(t)
	f := facts(t, dir)
	if f.DataDir != dir {
		t.Errorf("data_dir %s, want %s", f.DataDir, dir)
	}
	out, err := exec.Command("findmnt", "-n", "-r", "-o", "TARGET,FSTYPE,SOURCE", "-T", dir).Output()
	fm := strings.Fields(string(out))
	if err != nil || len(fm) != 3 {
		t.Fatalf("findmnt -T %s: %q, %v", dir, out, err)
	}
	want := fsWant{point: fm[0], fstype: fm[1], device: fm[2]}
	if strings.HasPrefix(fm[2], "/dev/") {
		// A disk, never a partition: partitions share their disk's queue.
		want.device = f.Device
		if _, err := os.Stat(filepath.Join("/sys/block", f.Device)); err != nil {
			t.Errorf("device %q for %s is not a disk in /sys/block", f.Device, fm[2])
		}
	}
	checkFS(t, f, want)
}

func TestFactsTmpfs(t *testing.T) {
	dir := testutil.Tmpfs(t, "4m")
	checkFS(t, facts(t, dir), fsWant{point: dir, fstype: "tmpfs", device: "tmpfs", options: []string{"rw,", "(tmpfs: ", "size=4096k"}})
}

func TestFactsLoopExt4(t *testing.T) {
	dev, mnt := testutil.LoopExt4(t, 32<<20)
	f := facts(t, mnt)
	checkFS(t, f, fsWant{point: mnt, fstype: "ext4", device: filepath.Base(dev), options: []string{"rw,", "(ext4: rw"}})
	if f.Scheduler == "" {
		t.Errorf("no scheduler for %s", dev)
	}
}

// TestFactsNotYetMade describes a data dir the workload has not created
// by the parent it will be created in, but names the data dir itself.
func TestFactsNotYetMade(t *testing.T) {
	parent := realTempDir(t)
	dir := filepath.Join(parent, "data", "deeper")
	f, p := facts(t, dir), facts(t, parent)
	if f.DataDir != dir {
		t.Errorf("data_dir %s, want %s", f.DataDir, dir)
	}
	f.DataDir = p.DataDir
	if d := cmp.Diff(p, f); d != "" {
		t.Errorf("facts of %s differ from those of %s (-parent +data dir):\n%s", dir, parent, d)
	}

	t.Chdir(parent)
	if f := facts(t, "data"); f.DataDir != filepath.Join(parent, "data") || f.MountPoint != p.MountPoint {
		t.Errorf("relative data dir: data_dir %s on %s, want %s on %s", f.DataDir, f.MountPoint, filepath.Join(parent, "data"), p.MountPoint)
	}
}

func TestFactsNoDataDir(t *testing.T) {
	if _, err := localFacts(""); err == nil || !strings.Contains(err.Error(), "no data dir") {
		t.Errorf("localFacts(\"\") = %v, want an error naming the missing data dir", err)
	}
}

func realTempDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}
