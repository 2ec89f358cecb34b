package lab

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/perfbisect/perfbisect/internal/proc"
)

// Check measures the lab's write IOPS as a workload sees them (`lab status`):
// for d it runs dd writing 4 KiB blocks with O_DSYNC (each write durable
// before the next, like fdatasync after every write) to a new file in
// DataDir, from a shell that first puts itself into the lab cgroup and then
// becomes dd:
//
//	sh -c 'echo $$ > CGROUP/cgroup.procs && exec dd if=/dev/zero of=FILE bs=4k count=N oflag=dsync'
//
// After d dd is stopped; the writes done are the file's size over 4 KiB,
// and the result is those writes over the time dd ran. The file is removed.
// A separate process is the honest way: a Go thread of this process cannot
// be put into a cgroup alone. On gp2, the writes spend credits like any
// other in the lab.
func (s *State) Check(ctx context.Context, d time.Duration) (measuredIOPS float64, err error) {
	r, err := s.check(ctx, d)
	if err != nil {
		return 0, err
	}
	return r.IOPS(), nil
}

// checkResult is what a Check saw.
type checkResult struct {
	Writes  int64         // 4 KiB O_DSYNC writes done
	IOs     uint64        // write I/Os the cgroup sent to the device meanwhile
	Elapsed time.Duration // how long dd ran
}

func (r checkResult) IOPS() float64 { return float64(r.Writes) / r.Elapsed.Seconds() }

const checkBlock = 4096

func (s *State) check(ctx context.Context, d time.Duration) (checkResult, error) {
	if d <= 0 {
		return checkResult{}, fmt.Errorf("lab: check for %v: needs a positive duration", d)
	}
	file := filepath.Join(s.DataDir, fmt.Sprintf(".lab-check-%d", os.Getpid()))
	defer os.Remove(file)
	// Enough blocks for d at 20,000 IOPS, and never more than half the
	// filesystem's free space.
	count := int64(d.Seconds()*20000) + 1
	var fs syscall.Statfs_t
	if err := syscall.Statfs(s.DataDir, &fs); err != nil {
		return checkResult{}, fmt.Errorf("lab: %v", err)
	}
	count = min(count, int64(fs.Bavail)*fs.Bsize/2/checkBlock)
	ios0, err := s.WriteIOs()
	if err != nil {
		return checkResult{}, err
	}
	// dd is a workload: it dies with perfbisect, and is stopped with
	// SIGTERM after d, or killed when ctx is done.
	start := time.Now()
	dd, err := proc.Start(context.Background(), proc.Cmd{
		Name: "dd", Path: "sh", Quote: proc.StderrOnly, ParentDeath: syscall.SIGKILL,
		Args: []string{"-c", `echo $$ > "$0"/cgroup.procs && exec dd if=/dev/zero of="$1" bs=4k count="$2" oflag=dsync status=none`,
			s.Cgroup, file, fmt.Sprint(count)},
		Stop: []proc.Step{{Signal: syscall.SIGTERM, Wait: 5 * time.Second}},
	})
	if err != nil {
		return checkResult{}, fmt.Errorf("lab: check: %v", err)
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	stopped := false
	select {
	case <-dd.Done(): // dd finished its count early
	case <-timer.C:
		stopped = true
	case <-ctx.Done():
	}
	elapsed := time.Since(start)
	// Nothing to do when dd has exited; SIGTERM after d, SIGKILL at once
	// when ctx is done. A dd that SIGKILL does not end (stuck in the
	// kernel) is left to it: waiting for it would hang lab status.
	if err := dd.Stop(ctx); err != nil {
		return checkResult{}, fmt.Errorf("lab: check: %v", err)
	}
	if err := ctx.Err(); err != nil {
		return checkResult{}, err
	}
	waitErr := dd.Wait()
	if waitErr != nil && !stopped {
		return checkResult{}, fmt.Errorf("lab: check: %v", waitErr)
	}
	fi, err := os.Stat(file)
	if err != nil {
		return checkResult{}, fmt.Errorf("lab: check: dd wrote nothing (%v): %v", waitErr, err)
	}
	ios1, err := s.WriteIOs()
	if err != nil {
		return checkResult{}, err
	}
	return checkResult{Writes: fi.Size() / checkBlock, IOs: ios1 - ios0, Elapsed: elapsed}, nil
}
