package sysinfo

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/perfbisect/perfbisect/internal/pathx"
)

// The request-queue settings that perfbisect changes (the scheduler knob,
// the lab's emulated image) are written here, beside where they are read,
// so each file has one writer and every writer checks what the kernel kept.

// WriteSys writes value to an existing /sys or /proc file in one write, as
// the kernel expects. The error says only why (the caller names the file,
// usually as the command an operator would type).
func WriteSys(file, value string) error {
	f, err := os.OpenFile(file, os.O_WRONLY, 0)
	if err != nil {
		return pathx.Bare(err)
	}
	_, err = f.Write([]byte(value))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return pathx.Bare(err)
}

// readBack is the error of reading a file back after writing it, without
// its path, as WriteSys's.
func readBack(err error) error { return fmt.Errorf("read it back: %v", pathx.Bare(err)) }

// SetScheduler switches a request queue's I/O scheduler and checks that the
// kernel took it. Like WriteSys, its error says only why.
func SetScheduler(queue, name string) error {
	if err := WriteSys(filepath.Join(queue, "scheduler"), name); err != nil {
		return err
	}
	cur, _, err := ReadScheduler(queue)
	if err != nil {
		return readBack(err)
	}
	if cur != name {
		return fmt.Errorf("the kernel kept %s", cur)
	}
	return nil
}

// ReadAhead is a request queue's read-ahead in KiB, as read_ahead_kb holds it.
func ReadAhead(queue string) (string, error) {
	b, err := os.ReadFile(filepath.Join(queue, "read_ahead_kb"))
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// SetReadAhead sets a request queue's read-ahead in KiB and checks that the
// kernel kept it (it rounds to whole pages). Like WriteSys, its error says
// only why.
func SetReadAhead(queue, kb string) error {
	if err := WriteSys(filepath.Join(queue, "read_ahead_kb"), kb); err != nil {
		return err
	}
	cur, err := ReadAhead(queue)
	if err != nil {
		return readBack(err)
	}
	if cur != kb {
		return fmt.Errorf("the kernel kept %s KiB", cur)
	}
	return nil
}
