package session

import (
	"fmt"
	"strings"

	"github.com/perfbisect/perfbisect/probe"
)

// A reference is only a baseline for the same workload: 4 KiB fdatasync'd
// writes are not last night's 16 KiB ones, nor sysbench's oltp_insert
// pgbench's tpcb-like. WorkloadDiff says how two workloads differ in what
// both record (a saved tool output records only its tool; a session log
// or probe output its whole spec), so a walk can refuse a reference that
// measured something else, and compare can say so.

// WorkloadDiff lists how the workload a run recorded (ref) differs from
// another (walk): "block size 16KiB, not 4KiB". Fields one side does not
// record are not compared; the data directory and duration never are.
func WorkloadDiff(ref, walk probe.Spec) []string {
	var out []string
	diff := func(what, r, w string) {
		if r != "" && w != "" && r != w {
			out = append(out, fmt.Sprintf("%s %s, not %s", what, r, w))
		}
	}
	num := func(n int) string {
		if n == 0 {
			return ""
		}
		return fmt.Sprint(n)
	}
	size := func(s probe.Size) string {
		if s == 0 {
			return ""
		}
		return s.String()
	}
	diff("workload", ref.Workload, walk.Workload)
	if len(out) > 0 {
		return out // another tool: its settings are not comparable
	}
	if ref.Workload == probe.WorkloadFsync || ref.Workload == "" && walk.Workload == probe.WorkloadFsync {
		diff("block size", size(ref.BS), size(walk.BS))
		diff("file size", size(ref.FileSize), size(walk.FileSize))
		diff("prealloc", string(ref.Prealloc), string(walk.Prealloc))
	}
	diff("sync mode", string(ref.Sync), string(walk.Sync))
	diff("threads", num(ref.Threads), num(walk.Threads))
	diff("test", ref.Test, walk.Test)
	diff("server", ref.Server, walk.Server)
	diff("fio arguments", ref.Args, walk.Args)
	diff("command", ref.Command, walk.Command)
	return out
}

// toolWorkload is the workload a saved tool output comes from: "fio" for
// "fio-json", "sysbench" for "sysbench-0.5".
func toolWorkload(format string) string {
	kind, _, _ := strings.Cut(format, "-")
	return kind
}
