package proc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/testutil"
)

// These tests start real processes: the fake in proctest stands in for
// them elsewhere, so they are what proves the real effect.

func sh(script string) Cmd { return Cmd{Name: "script", Path: "/bin/sh", Args: []string{"-c", script}} }

func exitOf(t *testing.T, err error) *ExitError {
	t.Helper()
	var ee *ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("err = %v (%T), want an *ExitError", err, err)
	}
	return ee
}

// A program that ignores SIGINT gets the next signal of its sequence after
// the wait, and its message says why it took so long.
func TestStopSequence(t *testing.T) {
	c := sh(`trap '' INT; trap 'echo got TERM; exit 7' TERM; echo ready; while :; do sleep 0.05; done`)
	c.Stop = []Step{{Signal: syscall.SIGINT, Wait: 300 * time.Millisecond}, {Signal: syscall.SIGTERM, Wait: 5 * time.Second}}
	c.Quote = Interleaved
	p, took := stopWhenReady(t, c)
	if took < 300*time.Millisecond || took > 3*time.Second {
		t.Errorf("stopped in %v, want just over the 300ms SIGINT was given", took)
	}
	ee := exitOf(t, p.Wait())
	note := "perfbisect: script (pid " + strconv.Itoa(p.Pid()) + ") did not exit within 300ms of SIGINT"
	if ee.How != "exit status 7" || !slices.Contains(ee.Said, note) || !slices.Contains(ee.Said, "got TERM") {
		t.Errorf("message %q\nwant exit status 7, the note %q, and what the script said on SIGTERM", ee, note)
	}
}

// A program that ignores every signal of its sequence is killed.
func TestStopSequenceEndsInSIGKILL(t *testing.T) {
	c := sh(`trap '' INT TERM; echo ready; while :; do sleep 0.05; done`)
	c.Stop = []Step{{Signal: syscall.SIGINT, Wait: 100 * time.Millisecond}, {Signal: syscall.SIGTERM, Wait: 100 * time.Millisecond}}
	c.Quote = StderrOnly
	p, took := stopWhenReady(t, c)
	if took < 200*time.Millisecond || took > 3*time.Second {
		t.Errorf("killed after %v, want just over the 200ms of its sequence", took)
	}
	if ee := exitOf(t, p.Wait()); ee.How != "killed by SIGKILL" || len(ee.Said) != 2 {
		t.Errorf("ended %q saying %q, want killed by SIGKILL and perfbisect's two notes", ee.How, ee.Said)
	}
	// Stop after the end returns at once.
	if err := p.Stop(t.Context()); err != nil {
		t.Errorf("second Stop: %v", err)
	}
}

// stopWhenReady starts c, whose script prints "ready" once its traps are
// set, and stops it then; it returns the process and how long Stop took.
func stopWhenReady(t *testing.T, c Cmd) (Process, time.Duration) {
	t.Helper()
	ready := make(chan struct{}, 1)
	next := c.Line
	c.Line = func(l Line) {
		if next != nil {
			next(l)
		}
		if l.Text == "ready" {
			ready <- struct{}{}
		}
	}
	p, err := Start(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-ready:
	case <-time.After(10 * time.Second):
		t.Fatal("the script did not start")
	}
	begin := time.Now()
	if err := p.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	return p, time.Since(begin)
}

// A server's shutdown signal goes to it alone: its children are its to stop.
func TestLeaderStep(t *testing.T) {
	c := sh(`(trap 'echo child got TERM' TERM; trap 'exit 0' USR1; while :; do sleep 0.05; done) &
trap 'echo leader got TERM; kill -USR1 $!; wait; exit 0' TERM
echo ready; wait`)
	c.Stop = []Step{{Signal: syscall.SIGTERM, Leader: true, Wait: 5 * time.Second}}
	var said []string
	c.Line = func(l Line) { said = append(said, l.Text) }
	p, _ := stopWhenReady(t, c)
	if err := p.Wait(); err != nil {
		t.Fatalf("a clean shutdown: %v", err)
	}
	if got := strings.Join(said, "|"); got != "ready|leader got TERM" {
		t.Errorf("output %q: want SIGTERM to reach the leader only", got)
	}
}

// A grandchild that left the program's process group and holds its output
// open does not keep Run waiting.
func TestGrandchildHoldsThePipe(t *testing.T) {
	begin := time.Now()
	res, err := Run(t.Context(), sh(`setsid sleep 30 & echo $!; echo started`))
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(begin)
	lines := strings.Split(res.Stdout, "\n")
	if len(lines) != 2 || lines[1] != "started" {
		t.Fatalf("stdout %q", res.Stdout)
	}
	if pid, err := strconv.Atoi(lines[0]); err == nil {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	if took > drainWait+time.Second {
		t.Errorf("Run took %v with a grandchild holding its output, want at most %v", took, drainWait)
	}
}

// What a program leaves in its process group dies with it.
func TestGroupKilledAfterExit(t *testing.T) {
	res, err := Run(t.Context(), sh(`sleep 30 & echo $!`))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(res.Stdout)
	if err != nil {
		t.Fatalf("stdout %q", res.Stdout)
	}
	if !waitGone(pid, 5*time.Second) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the program's background child %d outlived it", pid)
	}
}

const parentEnv = "PERFBISECT_PROC_TEST_PARENT"

// TestParentDeath runs this test binary as a parent that starts sleep and
// is then killed with SIGKILL: sleep must die with it when its Cmd asks for
// a parent-death signal, and live on when it does not (a revert finishes).
func TestParentDeath(t *testing.T) {
	if sig := os.Getenv(parentEnv); sig != "" {
		n, _ := strconv.Atoi(sig)
		p, err := Start(context.Background(), Cmd{Path: "sleep", Args: []string{"30"}, ParentDeath: syscall.Signal(n)})
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println(p.Pid())
		select {} // until killed
	}
	for name, u := range map[string]struct {
		sig  syscall.Signal
		dies bool
	}{"SIGKILL": {syscall.SIGKILL, true}, "none": {0, false}} {
		t.Run(name, func(t *testing.T) {
			pid := sleepOfKilledParent(t, u.sig)
			defer syscall.Kill(pid, syscall.SIGKILL)
			if gone := waitGone(pid, 2*time.Second); gone != u.dies {
				t.Errorf("with parent-death signal %v, the child is gone %t after its parent was killed, want %t", u.sig, gone, u.dies)
			}
		})
	}
}

func sleepOfKilledParent(t *testing.T, sig syscall.Signal) int {
	t.Helper()
	parent := exec.Command(os.Args[0], "-test.run=^TestParentDeath$")
	parent.Env = append(os.Environ(), fmt.Sprintf("%s=%d", parentEnv, sig))
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	defer parent.Wait()
	defer parent.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	pid, perr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || perr != nil {
		t.Fatalf("the parent said %q (%v)", line, err)
	}
	if !Alive(pid) {
		t.Fatalf("sleep (pid %d) is not running", pid)
	}
	parent.Process.Kill()
	return pid
}

func TestRunFails(t *testing.T) {
	for name, u := range map[string]struct {
		cmd  Cmd
		want string
	}{
		"stderr":                       {sh(`echo chatter; echo "mount: /x: bad option" >&2; exit 32`), "script failed (exit status 32): mount: /x: bad option"},
		"stdout when stderr is silent": {sh(`echo "FATAL: no tables"; exit 1`), "script failed (exit status 1): FATAL: no tables"},
		"nothing said":                 {sh(`exit 2`), "script failed (exit status 2) without a word"},
		"signal":                       {sh(`kill -TERM $$`), "script failed (killed by SIGTERM) without a word"},
		"earlier errors": {
			Cmd{Name: "install", Path: "/bin/sh", Args: []string{"-c", `echo "ERROR: 1051 Unknown table"; for i in 1 2 3 4; do echo advice $i; done; exit 1`}, Keep: 2, Quote: Interleaved},
			"install failed (exit status 1): ERROR: 1051 Unknown table | … | advice 3 | advice 4",
		},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Run(t.Context(), u.cmd)
			if err == nil || err.Error() != u.want {
				t.Errorf("err = %v\nwant %s", err, u.want)
			}
		})
	}
}

func TestRunTimeout(t *testing.T) {
	begin := time.Now()
	_, err := Run(t.Context(), Cmd{Path: "sleep", Args: []string{"30"}, Timeout: 100 * time.Millisecond})
	if took := time.Since(begin); took > 3*time.Second {
		t.Errorf("took %v", took)
	}
	var te *TimeoutError
	if err == nil || err.Error() != "sleep failed (killed after the 100ms timeout) without a word" || !errors.As(err, &te) {
		t.Errorf("err = %v, want the timeout named", err)
	}
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := Run(ctx, Cmd{Name: "pgbench -i", Path: "sleep", Args: []string{"30"}})
	if err == nil || err.Error() != "pgbench -i: interrupted" || !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want interrupted", err)
	}
	// A context that is done already starts nothing.
	_, err = Run(ctx, Cmd{Path: "/bin/true"})
	if err == nil || !strings.Contains(err.Error(), "start true: context canceled") {
		t.Errorf("err = %v", err)
	}
}

// A program that does not start has its files closed all the same.
func TestStartFails(t *testing.T) {
	testutil.ClosesFile(t, func(f *os.File) {
		_, err := Run(t.Context(), Cmd{Path: "/nonexistent/prog", Files: []*os.File{f}})
		if err == nil || !strings.Contains(err.Error(), "start prog: ") {
			t.Errorf("err = %v", err)
		}
	})
}

// The agent is stopped by closing its stdin: what it was sent arrives.
func TestStdinPipe(t *testing.T) {
	var said []string
	c := Cmd{Path: "cat", StdinPipe: true, Stop: []Step{{CloseStdin: true, Wait: 5 * time.Second}},
		Line: func(l Line) { said = append(said, l.Text) }}
	p, err := Start(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Stdin().Write([]byte("request\n")); err != nil {
		t.Fatal(err)
	}
	if err := p.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := p.Wait(); err != nil || strings.Join(said, "|") != "request" {
		t.Errorf("cat ended with %v after saying %q; want a clean end after the request", err, said)
	}
}

func TestFilesAndEnv(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	w.WriteString("from fd 3\n")
	w.Close()
	dir := t.TempDir()
	res, err := Run(t.Context(), Cmd{Path: "/bin/sh", Args: []string{"-c", `cat /dev/fd/3; pwd; echo "$X"`}, Dir: dir, Env: []string{"X=set"}, Files: []*os.File{r}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "from fd 3\n" + dir + "\nset"; res.Stdout != want {
		t.Errorf("stdout %q, want %q", res.Stdout, want)
	}
}

func TestDetachAndStopOther(t *testing.T) {
	pid, err := Detach(Cmd{Path: "sleep", Args: []string{"30"}})
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(pid, syscall.SIGKILL)
	if f, err := statFields(pid); err != nil || len(f) < 4 || f[3] != strconv.Itoa(pid) {
		t.Errorf("session of the detached process: %q, %v; want its own", f, err)
	}
	start, err := StartTime(pid)
	if err != nil {
		t.Fatal(err)
	}
	if gone := StopOther(pid, start+1, []Step{{Signal: syscall.SIGTERM, Wait: time.Second}}); !gone || !Alive(pid) {
		t.Errorf("StopOther signalled a process with another start time (pid reused)")
	}
	if !StopOther(pid, start, []Step{{Signal: syscall.SIGTERM, Wait: 5 * time.Second}}) {
		t.Errorf("StopOther did not stop pid %d", pid)
	}
	if !StopOther(os.Getpid(), 0, nil) || !Alive(os.Getpid()) {
		t.Errorf("StopOther on perfbisect itself")
	}
}
