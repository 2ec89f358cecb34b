package lab

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteIOs reads the write count from both cgroup versions' files as
// the kernel writes them; the real tests reach only the version this
// machine runs.
func TestWriteIOs(t *testing.T) {
	const v1 = "7:3 Read 12\n7:3 Write 300\n7:3 Sync 300\n7:3 Async 12\n7:3 Discard 0\n7:3 Total 312\n8:0 Write 99\nTotal 411\n"
	const v2 = "8:0 rbytes=0 wbytes=405504 rios=0 wios=99 dbytes=0 dios=0\n7:3 rbytes=49152 wbytes=1228800 rios=12 wios=300 dbytes=0 dios=0\n"
	uu := map[string]struct {
		version    int
		file, text string
		dev        string
		want       uint64
		err        string // "" for none
	}{
		"v1":              {1, "blkio.throttle.io_serviced", v1, "7:3", 300, ""},
		"v1 other device": {1, "blkio.throttle.io_serviced", v1, "8:0", 99, ""},
		"v1 no I/O yet":   {1, "blkio.throttle.io_serviced", "Total 0\n", "7:3", 0, ""},
		"v2":              {2, "io.stat", v2, "7:3", 300, ""},
		"v2 other device": {2, "io.stat", v2, "8:0", 99, ""},
		"v2 no I/O yet":   {2, "io.stat", "", "7:3", 0, ""},
		"v1 file missing": {1, "io.stat", v2, "7:3", 0, "blkio.throttle.io_serviced"},
		"v2 file missing": {2, "blkio.throttle.io_serviced", v1, "7:3", 0, "io.stat"},
		"bad count":       {2, "io.stat", "7:3 wios=lots\n", "7:3", 0, "lots"},
		"unknown version": {3, "io.stat", v2, "7:3", 0, "unknown cgroup version 3"},
	}
	for name, u := range uu {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, u.file), []byte(u.text), 0o644); err != nil {
			t.Fatal(err)
		}
		s := &State{Cgroup: dir, CgroupVersion: u.version, Dev: u.dev}
		n, err := s.WriteIOs()
		if n != u.want || (err == nil) != (u.err == "") || err != nil && !strings.Contains(err.Error(), u.err) {
			t.Errorf("%s: WriteIOs() = %d, %v; want %d, %q", name, n, err, u.want, u.err)
		}
	}
}
