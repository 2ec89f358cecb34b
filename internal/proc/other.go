package proc

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Detach starts c in a session of its own, away from perfbisect's terminal,
// with no parent-death signal and its stdin and outputs on /dev/null, and
// lets it go: it is meant to outlive perfbisect (the lab's controller,
// which `lab up` starts and `lab down` stops). It returns its pid; stop it
// with StopOther. c's Stop, Timeout, StdinPipe and Line do not apply.
func Detach(c Cmd) (int, error) {
	cmd := c.command(&syscall.SysProcAttr{Setsid: true})
	err := cmd.Start()
	closeAll(c.Files)
	if err != nil {
		return 0, fmt.Errorf("start %s: %w", c.Title(), err)
	}
	pid := cmd.Process.Pid
	// Nobody waits for it here: when perfbisect exits, init reaps it.
	cmd.Process.Release()
	return pid, nil
}

// StopOther stops a process that is not perfbisect's child (one Detach
// started, found again by its pid): each step's signal to it alone, each
// given its wait, then SIGKILL. It never signals perfbisect itself, nor a
// process that has another start time than start (the pid was reused;
// start 0 skips that check). It reports whether the process is gone.
func StopOther(pid int, start uint64, stop []Step) bool {
	if pid <= 0 || pid == os.Getpid() || !Alive(pid) {
		return true
	}
	if start != 0 {
		if st, err := StartTime(pid); err != nil || st != start {
			return true // the pid belongs to another process now
		}
	}
	for _, s := range append(stop[:len(stop):len(stop)], Step{Signal: syscall.SIGKILL, Wait: killWait}) {
		syscall.Kill(pid, s.Signal)
		if waitGone(pid, s.Wait) {
			return true
		}
	}
	return false
}

// waitGone polls until pid is gone or d has passed.
func waitGone(pid int, d time.Duration) bool {
	for end := time.Now().Add(d); Alive(pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			return false
		}
	}
	return true
}

// Alive says whether pid runs (a zombie does not).
func Alive(pid int) bool {
	f, err := statFields(pid)
	return err == nil && len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// StartTime is a process's start time, in clock ticks since boot: with its
// pid, it names one process, even after the pid is reused.
func StartTime(pid int) (uint64, error) {
	f, err := statFields(pid)
	if err != nil {
		return 0, err
	}
	if len(f) < 20 {
		return 0, fmt.Errorf("/proc/%d/stat: short", pid)
	}
	return strconv.ParseUint(f[19], 10, 64) // field 22: starttime
}

// statFields are the fields of /proc/PID/stat after the command name, from
// field 3 (state) on.
func statFields(pid int) ([]string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	stat := string(b)
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return nil, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	return strings.Fields(stat[i+1:]), nil
}
