package db

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/proc"
	"github.com/perfbisect/perfbisect/internal/testutil"
)

// These tests check what the supervisor does for a managed server: its
// process group goes with it, and so does the server when perfbisect dies.

// groupMembers lists the live (not zombie) processes in process group pgid.
func groupMembers(t *testing.T, pgid int) []testutil.Process {
	t.Helper()
	return testutil.Processes(t, func(p testutil.Process) bool { return p.Pgrp == pgid && p.State != "Z" })
}

// waitGone waits for pid to end. Its zombie counts as gone: an orphan
// killed with its parent waits for PID 1 to reap it, and PID 1 in a
// container may be slow to.
func waitGone(t *testing.T, pid int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for proc.Alive(pid) {
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
	if !proc.Alive(pid) {
		t.Fatalf("server pid %d is not running", pid)
	}
	cmd.Process.Kill()
	cmd.Wait()
	waitGone(t, pid, 10*time.Second)
	// Nothing removes the data dir of a killed perfbisect; t.TempDir's
	// cleanup does here.
}
