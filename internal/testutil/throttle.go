package testutil

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// blkioRoot is cgroup v1's blkio hierarchy, where the kernel's write
// throttle of a device is set per cgroup.
const blkioRoot = "/sys/fs/cgroup/blkio"

// Throttled makes a cgroup whose writes to the block device dev are
// limited to iops a second (cgroup v1 blkio.throttle.write_iops_device),
// and returns a function that makes a command whose processes all run in
// it. The cgroup is removed when the test ends; by then its processes must
// have ended. A test of a slow device uses it to make the device's flushes,
// not the machine's shared CPUs, what a workload waits on.
func Throttled(t testing.TB, dev string, iops int) func(ctx context.Context, name string, args ...string) *exec.Cmd {
	t.Helper()
	RequireRoot(t)
	RequireTool(t, "sh")
	if _, err := os.Stat(filepath.Join(blkioRoot, "blkio.throttle.write_iops_device")); err != nil {
		Missing(t, "cgroup v1 blkio write throttling ("+blkioRoot+")")
	}
	var st syscall.Stat_t
	if err := syscall.Stat(dev, &st); err != nil {
		t.Fatal(err)
	}
	rdev := uint64(st.Rdev)
	majmin := fmt.Sprintf("%d:%d", (rdev>>8)&0xfff|(rdev>>32)&^0xfff, rdev&0xff|(rdev>>12)&^0xff)
	cg, err := os.MkdirTemp(blkioRoot, "perfbisect-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.Remove(cg); err != nil {
			t.Errorf("remove the test's cgroup: %v", err)
		}
	})
	rule := fmt.Sprintf("%s %d", majmin, iops)
	if err := os.WriteFile(filepath.Join(cg, "blkio.throttle.write_iops_device"), []byte(rule), 0o644); err != nil {
		t.Fatalf("throttle %s: %v", dev, err)
	}
	return func(ctx context.Context, name string, args ...string) *exec.Cmd {
		// The shell joins the cgroup, then becomes the command: every
		// process it starts is in the cgroup from its first write.
		return exec.CommandContext(ctx, "sh", append([]string{"-c", `echo $$ > "$0/cgroup.procs" && exec "$@"`, cg, name}, args...)...)
	}
}
