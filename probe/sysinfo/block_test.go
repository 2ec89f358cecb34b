package sysinfo

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfbisect/perfbisect/internal/testutil"
)

func TestParseSchedulers(t *testing.T) {
	uu := map[string]struct {
		in, cur, offered string
	}{
		"typical":   {"[mq-deadline] kyber bfq none\n", "mq-deadline", "mq-deadline kyber bfq none"},
		"none last": {"none [bfq]", "bfq", "none bfq"},
		"single":    {"none\n", "none", "none"},
		"empty":     {"", "", ""},
	}
	for name, u := range uu {
		cur, offered := parseSchedulers(u.in)
		if cur != u.cur || strings.Join(offered, " ") != u.offered {
			t.Errorf("%s: parseSchedulers(%q) = %q, %q; want %q, %q", name, u.in, cur, offered, u.cur, u.offered)
		}
	}
}

func TestDevSysPath(t *testing.T) {
	uu := map[uint64]string{
		0x0801:         "/sys/dev/block/8:1",
		0x10300:        "/sys/dev/block/259:0",
		0x10fe00:       "/sys/dev/block/254:256",
		0x100000000000: "/sys/dev/block/4096:0",
		(7 << 8) | 12:  "/sys/dev/block/7:12",
	}
	for dev, want := range uu {
		if got := devSysPath(dev); got != want {
			t.Errorf("devSysPath(%#x) = %s, want %s", dev, got, want)
		}
	}
}

func TestReadSchedulerAndRotational(t *testing.T) {
	q := t.TempDir()
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(q, name), []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("scheduler", "none [mq-deadline] kyber bfq \n")
	write("rotational", "1\n")
	cur, offered, err := ReadScheduler(q)
	if cur != "mq-deadline" || len(offered) != 4 || err != nil {
		t.Errorf("ReadScheduler = %q, %q, %v; want mq-deadline of 4", cur, offered, err)
	}
	if rot, err := Rotational(q); !rot || err != nil {
		t.Errorf("Rotational = %v, %v; want true", rot, err)
	}

	write("scheduler", "\n")
	write("rotational", "yes\n")
	if _, _, err := ReadScheduler(q); err == nil || !strings.Contains(err.Error(), "is empty") {
		t.Errorf("ReadScheduler(empty) = %v, want it to say so", err)
	}
	if _, err := Rotational(q); err == nil {
		t.Error("Rotational(yes) gave no error")
	}
	if _, _, err := ReadScheduler(filepath.Join(q, "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadScheduler(no queue) = %v, want not exist", err)
	}
}

// TestBlockDevice looks at the disk under the test's temporary directory,
// whatever it is, and checks what it says agrees with sysfs.
func TestBlockDevice(t *testing.T) {
	dir, m, err := Locate(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	disk, queue, err := BlockDevice(dir, m)
	if errors.Is(err, ErrNotBlockDevice) {
		t.Skipf("%s is on %s, not a disk", dir, m.FSType)
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join("/sys/class/block", disk, "partition")); err == nil {
		t.Errorf("BlockDevice(%s) = %s, a partition; want its disk", dir, disk)
	}
	if _, _, err := ReadScheduler(queue); err != nil {
		t.Errorf("%s (%s): %v", disk, queue, err)
	}
}

func TestBlockDeviceTmpfs(t *testing.T) {
	dir := testutil.Tmpfs(t, "4m")
	_, m, err := Locate(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := BlockDevice(dir, m); !errors.Is(err, ErrNotBlockDevice) || !strings.Contains(err.Error(), "is on tmpfs (tmpfs)") {
		t.Errorf("BlockDevice(tmpfs) = %v, want ErrNotBlockDevice saying tmpfs", err)
	}
}

// TestBlockDevicePartition mounts the first partition of a partitioned
// loop device and expects the loop device itself, whose queue it uses.
func TestBlockDevicePartition(t *testing.T) {
	testutil.RequireRoot(t)
	for _, tool := range []string{"losetup", "mkfs.ext4", "mount", "umount"} {
		testutil.RequireTool(t, tool)
	}
	img := filepath.Join(t.TempDir(), "disk.img")
	if err := os.WriteFile(img, mbr(1<<11, 1<<16), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(img, 40<<20); err != nil {
		t.Fatal(err)
	}
	dev := testutil.Loop(t, img, "--partscan")
	if _, err := os.Stat(dev + "p1"); err != nil {
		// A kernel built without MBR support scans no partitions; partx
		// adds them itself.
		testutil.RequireTool(t, "partx")
		testutil.Run(t, "partx", "--add", dev)
	}
	testutil.Run(t, "mkfs.ext4", "-q", "-F", dev+"p1")
	mnt := testutil.MountExt4(t, dev+"p1")

	_, m, err := Locate(mnt)
	if err != nil {
		t.Fatal(err)
	}
	disk, queue, err := BlockDevice(mnt, m)
	if want := filepath.Base(dev); disk != want || queue != filepath.Join("/sys/block", want, "queue") || err != nil {
		t.Errorf("BlockDevice(%s on %s) = %s, %s, %v; want %s and its queue", mnt, m.Source, disk, queue, err, want)
	}
}

// mbr is a master boot record with one Linux partition of size sectors
// from sector start.
func mbr(start, size uint32) []byte {
	b := make([]byte, 512)
	p := b[446:]
	p[4] = 0x83
	binary.LittleEndian.PutUint32(p[8:], start)
	binary.LittleEndian.PutUint32(p[12:], size)
	b[510], b[511] = 0x55, 0xaa
	return b
}

// TestQueueSettings changes a loop device's scheduler and read-ahead, as
// the scheduler knob and the lab's image do, and puts them back.
func TestQueueSettings(t *testing.T) {
	dev, _ := testutil.LoopExt4(t, 64<<20)
	queue := filepath.Join("/sys/block", filepath.Base(dev), "queue")
	was, offered, err := ReadScheduler(queue)
	if err != nil {
		t.Fatal(err)
	}
	wasRA, err := ReadAhead(queue)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		SetScheduler(queue, was)
		SetReadAhead(queue, wasRA)
	})
	if i := slices.IndexFunc(offered, func(s string) bool { return s != was }); i >= 0 {
		if err := SetScheduler(queue, offered[i]); err != nil {
			t.Errorf("SetScheduler(%s): %v", offered[i], err)
		}
		if now, _, _ := ReadScheduler(queue); now != offered[i] {
			t.Errorf("scheduler %s after SetScheduler(%s)", now, offered[i])
		}
		if err := SetScheduler(queue, was); err != nil {
			t.Errorf("SetScheduler(%s) back: %v", was, err)
		}
	}
	if err := SetScheduler(queue, "no-such-sched"); err == nil || strings.Contains(err.Error(), queue) {
		t.Errorf("SetScheduler(no-such-sched) = %v, want an error that leaves the path to the caller", err)
	}
	if now, _, _ := ReadScheduler(queue); now != was {
		t.Errorf("a refused scheduler left %s, want %s", now, was)
	}
	to := "4096"
	if wasRA == to {
		to = "128"
	}
	if err := SetReadAhead(queue, to); err != nil {
		t.Errorf("SetReadAhead(%s): %v", to, err)
	}
	if now, _ := ReadAhead(queue); now != to {
		t.Errorf("read-ahead %s after SetReadAhead(%s)", now, to)
	}
	if err := SetReadAhead(queue, "lots"); err == nil || strings.Contains(err.Error(), queue) {
		t.Errorf("SetReadAhead(lots) = %v, want an error that leaves the path to the caller", err)
	}
}

// TestWriteSysError: the error says why, without the path the caller
// already names; so does a failed read-back of a queue setting.
func TestWriteSysError(t *testing.T) {
	dir := t.TempDir()
	err := WriteSys(filepath.Join(dir, "none"), "1")
	if !errors.Is(err, os.ErrNotExist) || strings.Contains(err.Error(), "/") {
		t.Errorf("WriteSys(missing) = %v, want a bare not-exist error", err)
	}
	// Writing nothing to an empty file leaves it empty, as no kernel would.
	if err := os.WriteFile(filepath.Join(dir, "scheduler"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := SetScheduler(dir, ""); err == nil || !strings.Contains(err.Error(), "empty") || strings.Contains(err.Error(), "/") {
		t.Errorf("SetScheduler reading back an empty file = %v, want it to say so without the path", err)
	}
}
