package sysinfo

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ErrNotBlockDevice says a filesystem is not on a block device (tmpfs, NFS,
// overlay, ...), so there is no disk, queue or scheduler under it.
var ErrNotBlockDevice = errors.New("not on a block device")

// BlockDevice finds the disk under dir, which is on the mount m, and the
// sysfs directory of its request queue (/sys/block/DISK/queue). For a
// partition it is the whole disk, since partitions share their disk's
// queue. For a stacked device (device-mapper, md) it is the top device
// only; the disks below keep queues of their own. A device without a
// request queue gets the path where it would be, which does not exist.
func BlockDevice(dir string, m Mount) (disk, queue string, err error) {
	var st syscall.Stat_t
	if err := syscall.Stat(dir, &st); err != nil {
		return "", "", fmt.Errorf("stat %s: %v", dir, err)
	}
	sys := devSysPath(st.Dev)
	if _, err := os.Stat(sys); err != nil && strings.HasPrefix(m.Source, "/dev/") {
		// btrfs and others report an anonymous device in st_dev; the mount
		// source names the real one.
		if err := syscall.Stat(m.Source, &st); err == nil && st.Mode&syscall.S_IFMT == syscall.S_IFBLK {
			sys = devSysPath(st.Rdev)
		}
	}
	real, err := filepath.EvalSymlinks(sys)
	if err != nil {
		return "", "", fmt.Errorf("%s is on %s (%s): %w", dir, m.FSType, m.Source, ErrNotBlockDevice)
	}
	if _, err := os.Stat(filepath.Join(real, "partition")); err == nil {
		real = filepath.Dir(real)
	}
	disk = filepath.Base(real)
	queue = filepath.Join("/sys/block", disk, "queue")
	if _, err := os.Stat(queue); err != nil {
		queue = filepath.Join(real, "queue")
	}
	return disk, queue, nil
}

// devSysPath is the sysfs directory of a device number (see makedev(3)).
func devSysPath(dev uint64) string {
	major := (dev>>8)&0xfff | (dev>>32)&0xfffff000
	minor := dev&0xff | (dev>>12)&0xffffff00
	return fmt.Sprintf("/sys/dev/block/%d:%d", major, minor)
}

// ReadScheduler reads the I/O scheduler of a request queue (a directory
// BlockDevice returns): the one in use and all the kernel offers for it.
func ReadScheduler(queue string) (current string, offered []string, err error) {
	file := filepath.Join(queue, "scheduler")
	b, err := os.ReadFile(file)
	if err != nil {
		return "", nil, err
	}
	current, offered = parseSchedulers(string(b))
	if len(offered) == 0 {
		// A PathError, as a failed read is, so that pathx.Bare can drop
		// the path for a caller that names it already.
		return "", nil, &os.PathError{Op: "read", Path: file, Err: errors.New("it is empty")}
	}
	return current, offered, nil
}

// parseSchedulers reads "[mq-deadline] kyber bfq none": the one in brackets
// is in use. A device with a single choice may show it without brackets.
func parseSchedulers(s string) (current string, offered []string) {
	for _, f := range strings.Fields(s) {
		if name, ok := strings.CutPrefix(f, "["); ok {
			name = strings.TrimSuffix(name, "]")
			current = name
			f = name
		}
		offered = append(offered, f)
	}
	if current == "" && len(offered) == 1 {
		current = offered[0]
	}
	return current, offered
}

// Rotational says whether the kernel takes a request queue's device for a
// spinning disk. Virtual disks often claim to spin whatever is behind them.
func Rotational(queue string) (bool, error) {
	file := filepath.Join(queue, "rotational")
	b, err := os.ReadFile(file)
	if err != nil {
		return false, err
	}
	switch v := strings.TrimSpace(string(b)); v {
	case "0":
		return false, nil
	case "1":
		return true, nil
	default:
		return false, fmt.Errorf("%s: %q is neither 0 nor 1", file, v)
	}
}
