package testutil

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// blkioRoot is cgroup v1's blkio hierarchy, where the kernel's write
// throttle of a device is set per cgroup.
const blkioRoot = "/sys/fs/cgroup/blkio"

// Throttle is a cgroup of a test's own whose writes to one block device the
// kernel throttles (cgroup v1 blkio.throttle.write_iops_device) and counts.
// A test of a slow device uses it to make the device's flushes, not the
// machine's shared CPUs, what a workload waits on.
type Throttle struct {
	t      testing.TB
	Dir    string // the cgroup's directory
	majmin string // the device's MAJ:MIN
}

// NewThrottle makes the cgroup for dev, unthrottled until Limit; it is
// removed when the test ends, by when its processes must have ended.
func NewThrottle(t testing.TB, dev string) *Throttle {
	t.Helper()
	RequireRoot(t)
	RequireTool(t, "sh")
	if _, err := os.Stat(filepath.Join(blkioRoot, "blkio.throttle.write_iops_device")); err != nil {
		Missing(t, "cgroup v1 blkio write throttling ("+blkioRoot+")")
	}
	mm, err := os.ReadFile(filepath.Join("/sys/block", filepath.Base(dev), "dev"))
	if err != nil {
		t.Fatal(err)
	}
	cg, err := os.MkdirTemp(blkioRoot, "perfbisect-test-")
	if err != nil {
		t.Fatal(err)
	}
	th := &Throttle{t: t, Dir: cg, majmin: strings.TrimSpace(string(mm))}
	t.Cleanup(func() {
		th.Limit(0)
		if err := os.Remove(cg); err != nil {
			t.Errorf("remove the test's cgroup: %v", err)
		}
	})
	return th
}

// Throttled is a Throttle at iops write I/Os a second, and a function that
// makes a command run in it.
func Throttled(t testing.TB, dev string, iops int) func(ctx context.Context, name string, args ...string) *exec.Cmd {
	t.Helper()
	th := NewThrottle(t, dev)
	th.Limit(iops)
	return func(ctx context.Context, name string, args ...string) *exec.Cmd {
		argv := th.Argv(name, args...)
		return exec.CommandContext(ctx, argv[0], argv[1:]...)
	}
}

// Limit throttles the cgroup's writes to the device to iops a second (0:
// no limit).
func (th *Throttle) Limit(iops int) {
	th.t.Helper()
	rule := fmt.Sprintf("%s %d", th.majmin, iops)
	if err := os.WriteFile(filepath.Join(th.Dir, "blkio.throttle.write_iops_device"), []byte(rule), 0o644); err != nil {
		th.t.Fatalf("throttle %s: %v", th.majmin, err)
	}
}

// Argv is a command line that joins the cgroup, then becomes name: every
// process it starts is in the cgroup from its first write.
func (th *Throttle) Argv(name string, args ...string) []string {
	return append([]string{"sh", "-c", `echo $$ > "$0/cgroup.procs" && exec "$@"`, th.Dir, name}, args...)
}

// WriteIOs is the write I/Os the cgroup has sent to the device.
func (th *Throttle) WriteIOs() int64 {
	th.t.Helper()
	b, err := os.ReadFile(filepath.Join(th.Dir, "blkio.throttle.io_serviced"))
	if err != nil {
		th.t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == th.majmin && f[1] == "Write" {
			n, err := strconv.ParseInt(f[2], 10, 64)
			if err != nil {
				th.t.Fatal(err)
			}
			return n
		}
	}
	return 0
}
