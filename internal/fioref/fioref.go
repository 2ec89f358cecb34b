// Package fioref owns the fio job the fsync probe is held to: 4 KiB
// sequential writes, each made durable with fdatasync, by fio's sync engine,
// and fio's own write IOPS for it. The probe's test (which catches a probe
// that does not measure what fio measures) and make bench (which measures
// how close they are) run this one job, read fio's own figure, and never
// perfbisect's parser of fio: the yardstick stays fio's.
package fioref

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/perfbisect/perfbisect/internal/proc"
)

// WriteIOPS runs the job in dir on a file of size bytes for d, removes the
// file and returns fio's write IOPS. fio is given 30 s more than d (to lay
// out its file and report) before it is stopped.
func WriteIOPS(dir string, size int64, d time.Duration) (float64, error) {
	const name = "perfbisect-fioref"
	res, err := proc.Run(context.Background(), proc.Cmd{
		Path: "fio",
		Args: []string{"--name=" + name, "--directory=" + dir, "--ioengine=sync", "--fdatasync=1",
			"--bs=4k", "--rw=write", fmt.Sprintf("--size=%d", size), "--time_based",
			fmt.Sprintf("--runtime=%.0f", d.Seconds()), "--output-format=json"},
		ParentDeath: syscall.SIGKILL, // a workload: it dies with its caller
		Timeout:     d + 30*time.Second,
		Quote:       proc.StderrOnly, // its stdout is JSON
	})
	os.Remove(filepath.Join(dir, name+".0.0"))
	if err != nil {
		return 0, err
	}
	var rep struct {
		Jobs []struct {
			Write struct {
				IOPS float64 `json:"iops"`
			} `json:"write"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &rep); err != nil {
		return 0, fmt.Errorf("fio: unreadable JSON report: %v", err)
	}
	if len(rep.Jobs) != 1 {
		return 0, fmt.Errorf("fio: a JSON report of %d jobs, want the one it was given", len(rep.Jobs))
	}
	return rep.Jobs[0].Write.IOPS, nil
}
