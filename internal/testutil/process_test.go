package testutil

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// A child started here is found with its parent, group, arguments and
// environment, and is gone from the list once it is reaped.
func TestProcesses(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	cmd.Env = append(os.Environ(), "PERFBISECT_TESTUTIL_MARK=found")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	child := func(p Process) bool { return p.Pid == cmd.Process.Pid }
	ps := Processes(t, child)
	if len(ps) != 1 {
		t.Fatalf("Processes found %v for pid %d, want it alone", ps, cmd.Process.Pid)
	}
	p := ps[0]
	if p.Ppid != os.Getpid() || p.Pgrp != syscall.Getpgrp() || p.State == "Z" {
		t.Errorf("%v: ppid %d, group %d, state %s; want ppid %d, group %d, not a zombie", p, p.Ppid, p.Pgrp, p.State, os.Getpid(), syscall.Getpgrp())
	}
	if !p.HasArg("30") || p.HasArg("MARK") || !p.Mentions("TESTUTIL_MARK=found") || p.Mentions("not there") {
		t.Errorf("%v, environment %q: want the argument 30 and the mark in its environment only", p, p.Env)
	}
	if got, want := p.String(), fmt.Sprintf("%d: sleep 30", p.Pid); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if ps := Processes(t, child); len(ps) != 0 {
		t.Errorf("Processes found %v after it was reaped", ps)
	}
}
