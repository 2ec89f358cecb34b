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
	mnt, dev := loopExt4(t)
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
	if a, b := mustJSON(t, f), mustJSON(t, p); a != b {
		t.Errorf("facts of %s:\n%s\nwant those of %s:\n%s", dir, a, parent, b)
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

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// loopExt4 makes an ext4 filesystem on a loop device over a sparse file and
// mounts it; the test's cleanups unmount it and free the device, failed
// test or not.
func loopExt4(t *testing.T) (mnt, dev string) {
	t.Helper()
	testutil.RequireRoot(t)
	for _, tool := range []string{"losetup", "mkfs.ext4", "mount", "umount"} {
		testutil.RequireTool(t, tool)
	}
	dir := t.TempDir()
	img := filepath.Join(dir, "disk.img")
	if err := os.WriteFile(img, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(img, 32<<20); err != nil {
		t.Fatal(err)
	}
	dev = command(t, "losetup", "--find", "--show", img)
	t.Cleanup(func() { undo(t, "losetup", "-d", dev) })
	command(t, "mkfs.ext4", "-q", dev)
	mnt = filepath.Join(dir, "mnt")
	if err := os.Mkdir(mnt, 0o700); err != nil {
		t.Fatal(err)
	}
	command(t, "mount", "-t", "ext4", dev, mnt)
	t.Cleanup(func() { undo(t, "umount", mnt) })
	return mnt, dev
}

func command(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// undo runs a cleanup command, reporting a failure without stopping the
// other cleanups.
func undo(t *testing.T, name string, args ...string) {
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, out)
	}
}
