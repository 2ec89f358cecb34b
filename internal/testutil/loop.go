package testutil

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Run runs a program and returns what it printed, trimmed; if it fails, the
// test fails with the command line and its output.
func Run(t testing.TB, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// Undo runs a program that undoes what a test made, for use in a cleanup: a
// failure is reported without stopping the test's other cleanups.
func Undo(t testing.TB, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, out)
	}
}

// Loop attaches a free loop device over the file img, passing flags (like
// "--partscan") to losetup, and detaches it when the test ends, failed or
// not. It returns the device, like /dev/loop3.
func Loop(t testing.TB, img string, flags ...string) string {
	t.Helper()
	RequireRoot(t)
	RequireTool(t, "losetup")
	dev := Run(t, "losetup", append(append([]string{"--find", "--show"}, flags...), img)...)
	t.Cleanup(func() { Undo(t, "losetup", "-d", dev) })
	return dev
}

// MountExt4 mounts the ext4 filesystem on dev on a fresh directory and
// unmounts it when the test ends, failed or not. It returns the mount point.
func MountExt4(t testing.TB, dev string) string {
	t.Helper()
	RequireRoot(t)
	RequireTool(t, "mount")
	RequireTool(t, "umount")
	mnt := t.TempDir()
	Run(t, "mount", "-t", "ext4", dev, mnt)
	t.Cleanup(func() { Undo(t, "umount", mnt) })
	return mnt
}

// LoopExt4 makes an ext4 filesystem of size bytes in a sparse file, attaches
// a loop device over it and mounts it; it returns the device and the mount
// point. Everything is undone when the test ends, failed or not, so tests
// that change a disk's settings never touch the machine's own disks.
func LoopExt4(t testing.TB, size int64) (dev, mnt string) {
	t.Helper()
	RequireRoot(t)
	for _, tool := range []string{"losetup", "mkfs.ext4", "mount", "umount"} {
		RequireTool(t, tool)
	}
	img := filepath.Join(t.TempDir(), "disk.img")
	f, err := os.OpenFile(img, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	err = f.Truncate(size)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatalf("make %d-byte image %s: %v", size, img, err)
	}
	Run(t, "mkfs.ext4", "-q", "-F", img)
	dev = Loop(t, img)
	return dev, MountExt4(t, dev)
}

// OtherScheduler is the request queue of the block device dev, the I/O
// scheduler it uses and another one it offers; a device that offers only
// one is a missing prerequisite.
func OtherScheduler(t testing.TB, dev string) (queue, was, to string) {
	t.Helper()
	queue = filepath.Join("/sys/block", filepath.Base(dev), "queue")
	b, err := os.ReadFile(filepath.Join(queue, "scheduler"))
	if err != nil {
		t.Fatal(err)
	}
	var offered []string
	for _, s := range strings.Fields(string(b)) { // "[none] mq-deadline"
		if strings.HasPrefix(s, "[") {
			was = strings.Trim(s, "[]")
		} else {
			offered = append(offered, s)
		}
	}
	if len(offered) == 0 {
		Missing(t, fmt.Sprintf("%s offers only the %s scheduler", dev, was))
	}
	return queue, was, offered[0]
}
