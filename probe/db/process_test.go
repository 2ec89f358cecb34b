package db

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// These tests check what the supervisor does for a managed server: its
// process group goes with it, and so does the server when perfbisect dies.

// procStat returns the fields of /proc/<pid>/stat after the command name
// (state, ppid, pgrp, …), or nil when there is no such process.
func procStat(pid string) []string {
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return nil
	}
	i := strings.LastIndexByte(string(stat), ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(string(stat[i+1:]))
}

// gone reports whether no process has pid, or only its zombie: an orphan
// killed with its parent waits for PID 1 to reap it, and PID 1 in a container
// may be slow to.
func gone(pid int) bool {
	f := procStat(strconv.Itoa(pid))
	return f == nil || f[0] == "Z"
}

// groupMembers lists the live (not zombie) processes in process group pgid.
func groupMembers(t *testing.T, pgid int) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []string
	for _, e := range entries {
		if f := procStat(e.Name()); len(f) > 2 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
			pids = append(pids, e.Name())
		}
	}
	return pids
}

func waitGone(t *testing.T, pid int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !gone(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still runs %s later", pid, within)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestStopAfterCrash kills PostgreSQL's postmaster behind Stop's back: its
// backends must not outlive Stop, nor may its data dir.
func TestStopAfterCrash(t *testing.T) {
	requireKind(t, PostgreSQL)
	s := start(t, Options{Kind: PostgreSQL, Dir: serverDir(t)})
	pid := s.proc.Pid()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-s.proc.Done()
	if err := s.Stop(t.Context()); err != nil {
		t.Fatalf("Stop after a crash: %v", err)
	}
	if _, err := os.Stat(s.DataDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("data dir %s is still there after Stop", s.DataDir)
	}
	// SIGKILL is delivered at once, but a process on its way out may still
	// be seen for a moment.
	deadline := time.Now().Add(5 * time.Second)
	for left := groupMembers(t, pid); len(left) > 0; left = groupMembers(t, pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process group %d still has members after Stop: %v", pid, left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestServerDiesWithPerfbisect starts a server from a child test process and
// kills that process with SIGKILL: the server must not outlive it.
func TestServerDiesWithPerfbisect(t *testing.T) {
	if dir := os.Getenv("PERFBISECT_DB_TEST_DIR"); dir != "" {
		s, err := Start(context.Background(), Options{Kind: MariaDB, Dir: dir})
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println(s.proc.Pid(), s.DataDir)
		select {} // until killed
	}
	requireKind(t, MariaDB)
	dir := serverDir(t)
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestServerDiesWithPerfbisect$")
	cmd.Env = append(os.Environ(), "PERFBISECT_DB_TEST_DIR="+dir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		t.Fatalf("child: %v (read %q)", err, line)
	}
	var pid int
	var dataDir string
	if _, err := fmt.Sscan(line, &pid, &dataDir); err != nil {
		cmd.Process.Kill()
		t.Fatalf("child said %q: %v", line, err)
	}
	if gone(pid) {
		t.Fatalf("server pid %d is not running", pid)
	}
	cmd.Process.Kill()
	cmd.Wait()
	waitGone(t, pid, 10*time.Second)
	// Nothing removes the data dir of a killed perfbisect; t.TempDir's
	// cleanup does here.
}
