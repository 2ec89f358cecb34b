package testutil

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Process is a process as /proc shows it, for the checks that a run left
// nothing running.
type Process struct {
	Pid   int
	State string // from /proc/PID/stat: R, S, D, Z (a zombie, dead but not reaped)…
	Ppid  int
	Pgrp  int      // its process group
	Args  []string // its command line
	Env   []string // its environment; none where it may not be read
}

// Processes lists the processes running now that keep accepts. One that
// ends while /proc is read is left out. A /proc that cannot be read fails
// the test with Errorf, so that a goroutine of the test may call it too.
func Processes(t testing.TB, keep func(Process) bool) []Process {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Errorf("list the processes: %v", err)
		return nil
	}
	var ps []Process
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue // not a process
		}
		if p, ok := readProcess(pid); ok && keep(p) {
			ps = append(ps, p)
		}
	}
	return ps
}

func readProcess(pid int) (Process, bool) {
	dir := "/proc/" + strconv.Itoa(pid) + "/"
	stat, err := os.ReadFile(dir + "stat")
	if err != nil {
		return Process{}, false
	}
	// The command name comes first, in parentheses, and may hold spaces
	// and parentheses itself: the fields start after the last ')'.
	i := strings.LastIndexByte(string(stat), ')')
	if i < 0 {
		return Process{}, false
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 3 {
		return Process{}, false
	}
	p := Process{Pid: pid, State: f[0], Args: nulSeparated(dir + "cmdline"), Env: nulSeparated(dir + "environ")}
	p.Ppid, _ = strconv.Atoi(f[1])
	p.Pgrp, _ = strconv.Atoi(f[2])
	return p, true
}

// nulSeparated reads a /proc file of NUL-terminated strings.
func nulSeparated(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}

// HasArg reports whether one of p's arguments holds s.
func (p Process) HasArg(s string) bool { return slices.ContainsFunc(p.Args, contains(s)) }

// Mentions reports whether p's arguments or environment hold s.
func (p Process) Mentions(s string) bool {
	return p.HasArg(s) || slices.ContainsFunc(p.Env, contains(s))
}

func contains(s string) func(string) bool {
	return func(v string) bool { return strings.Contains(v, s) }
}

// String is the pid and the command line, for a test's message.
func (p Process) String() string { return strconv.Itoa(p.Pid) + ": " + strings.Join(p.Args, " ") }
