// Package fioref owns the fio job the fsync probe is held to: 4 KiB
// sequential writes, each made durable with fdatasync, by fio's sync engine,
// and fio's own write IOPS for it. The probe's test (which catches a probe
// that does not measure what fio measures) and make bench (which measures
// how close they are) run this one job, read fio's own figure, and never
// perfbisect's parser of fio: the yardstick stays fio's.
package fioref

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// WriteIOPS runs the job in dir on a file of size bytes for d, removes the
// file and returns fio's write IOPS.
func WriteIOPS(dir string, size int64, d time.Duration) (float64, error) {
	const name = "perfbisect-fioref"
	cmd := exec.Command("fio", "--name="+name, "--directory="+dir, "--ioengine=sync", "--fdatasync=1",
		"--bs=4k", "--rw=write", fmt.Sprintf("--size=%d", size), "--time_based",
		fmt.Sprintf("--runtime=%.0f", d.Seconds()), "--output-format=json")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	os.Remove(filepath.Join(dir, name+".0.0"))
	if err != nil {
		return 0, fmt.Errorf("fio: %v: %s", err, bytes.TrimSpace(errb.Bytes()))
	}
	var rep struct {
		Jobs []struct {
			Write struct {
				IOPS float64 `json:"iops"`
			} `json:"write"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil || len(rep.Jobs) != 1 {
		return 0, fmt.Errorf("fio: unreadable JSON report (%d jobs): %v", len(rep.Jobs), err)
	}
	return rep.Jobs[0].Write.IOPS, nil
}
