package proctest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/proc"
	"github.com/perfbisect/perfbisect/internal/testutil"
)

// recorder is a TB that keeps what the fake reports, so these tests can
// check the fake fails a test when it must.
type recorder struct {
	errs     []string
	cleanups []func()
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }

// end runs the cleanups, as the end of a test does.
func (r *recorder) end() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

func TestFakeRun(t *testing.T) {
	f := New(t)
	f.ExpectRun("losetup", "--find", "--show", "/x.img").Stdout("/dev/loop7\n")
	f.ExpectRun("mkfs.ext4", "-q", "/dev/loop7").Stdout("chatter\n").Stderr("mkfs.ext4: Device size reported to be zero.\n").Exit(1)
	res, err := f.Run(t.Context(), proc.Cmd{Path: "losetup", Args: []string{"--find", "--show", "/x.img"}})
	if err != nil || res.Stdout != "/dev/loop7" {
		t.Errorf("Run = %q, %v", res.Stdout, err)
	}
	var lines []proc.Line
	_, err = f.Run(t.Context(), proc.Cmd{Path: "mkfs.ext4", Args: []string{"-q", "/dev/loop7"}, Line: func(l proc.Line) { lines = append(lines, l) }})
	var ee *proc.ExitError
	if !errors.As(err, &ee) || err.Error() != "mkfs.ext4 failed (exit status 1): mkfs.ext4: Device size reported to be zero." {
		t.Errorf("err = %v, want the one exit message", err)
	}
	if len(lines) != 2 || lines[0].Stderr || !lines[1].Stderr {
		t.Errorf("lines %+v: want stdout's, then stderr's", lines)
	}
}

func TestFakeFailsTheTest(t *testing.T) {
	for name, u := range map[string]struct {
		expect func(*Fake)
		call   proc.Cmd
		want   string
	}{
		"unexpected":     {func(*Fake) {}, proc.Cmd{Path: "rm", Args: []string{"-rf", "/"}}, `unexpected command: Run ["rm" "-rf" "/"]`},
		"other argv":     {func(f *Fake) { f.ExpectRun("umount", "/a") }, proc.Cmd{Path: "umount", Args: []string{"/b"}}, `want Run ["umount" "/a"], got Run ["umount" "/b"]`},
		"start, not run": {func(f *Fake) { f.ExpectStart("fio") }, proc.Cmd{Path: "fio"}, `want Start ["fio"], got Run ["fio"]`},
		"dir":            {func(f *Fake) { f.ExpectRun("sh").InDir("/d") }, proc.Cmd{Path: "sh", Dir: "/e"}, `in "/e", not "/d"`},
		"env":            {func(f *Fake) { f.ExpectRun("sh").WithEnv("A=1") }, proc.Cmd{Path: "sh", Env: []string{"A=2"}}, "without A=1 in its environment"},
	} {
		t.Run(name, func(t *testing.T) {
			var r recorder
			f := New(&r)
			u.expect(f)
			if _, err := f.Run(t.Context(), u.call); err == nil {
				t.Error("an unexpected command ran")
			}
			if len(r.errs) != 1 || !strings.Contains(r.errs[0], u.want) {
				t.Errorf("the fake reported %q, want %q", r.errs, u.want)
			}
		})
	}
	var r recorder
	f := New(&r)
	f.ExpectRun("mount", "-o", "remount", "/")
	r.end()
	if len(r.errs) != 1 || !strings.Contains(r.errs[0], "never ran: Run mount -o remount /") {
		t.Errorf("the fake reported %q for a call never made", r.errs)
	}
}

func TestFakeStart(t *testing.T) {
	f := New(t)
	f.ExpectStart("sysbench", "run").Stdout("[ 1s ] tps: 5\n[ 2s ] tps: 6\n")
	f.ExpectStart("fio").Stdout("starting\n").Hold()
	f.ExpectStart("agent").Hold().Exit(0)
	f.ExpectStart("sleep").Hold()
	f.ExpectStart("pgbench").Hold()

	var got []string
	p, err := f.Start(t.Context(), proc.Cmd{Path: "sysbench", Args: []string{"run"}, Line: func(l proc.Line) { got = append(got, l.Text) }})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Wait(); err != nil || len(got) != 2 {
		t.Errorf("a process that says its lines and exits 0: %v, said %q", err, got)
	}

	// A held process runs until stopped, and ends by its first stop step.
	p, _ = f.Start(t.Context(), proc.Cmd{Path: "fio", Stop: []proc.Step{{Signal: syscall.SIGINT}}})
	select {
	case <-p.Done():
		t.Fatal("a held process ended by itself")
	case <-time.After(10 * time.Millisecond):
	}
	if err := p.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := p.Wait(); err == nil || err.Error() != "fio failed (killed by SIGINT): starting" {
		t.Errorf("stopped: %v", err)
	}

	// Closing its stdin ends it as it ends by itself.
	p, _ = f.Start(t.Context(), proc.Cmd{Path: "agent", StdinPipe: true})
	p.Stdin().Write([]byte("{}\n"))
	p.Stdin().Close()
	if err := p.Wait(); err != nil {
		t.Errorf("after its stdin closed: %v", err)
	}

	p, _ = f.Start(t.Context(), proc.Cmd{Path: "sleep", Timeout: time.Millisecond})
	var te *proc.TimeoutError
	if err := p.Wait(); !errors.As(err, &te) || err.Error() != "sleep failed (killed after the 1ms timeout) without a word" {
		t.Errorf("after its timeout: %v", err)
	}

	ctx, cancel := context.WithCancel(t.Context())
	p, _ = f.Start(ctx, proc.Cmd{Name: "pgbench -i", Path: "pgbench"})
	cancel()
	if err := p.Wait(); err == nil || err.Error() != "pgbench -i: interrupted" || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestFakeClosesFiles(t *testing.T) {
	f := New(t)
	f.ExpectRun("sysbench").FailToStart(errors.New("no such file"))
	testutil.ClosesFile(t, func(file *os.File) {
		if _, err := f.Run(t.Context(), proc.Cmd{Path: "sysbench", Files: []*os.File{file}}); err == nil || err.Error() != "start sysbench: no such file" {
			t.Errorf("err = %v", err)
		}
	})
}
