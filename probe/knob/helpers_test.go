package knob

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/sysinfo"
)

// watchedSysctls are the settings the tests change; TestMain checks they
// are as they were when the tests end.
var watchedSysctls = []string{"vm/dirty_expire_centisecs", "vm/dirty_background_bytes", "vm/dirty_background_ratio"}

// TestMain fails the run if the tests left a mount, a loop device or a
// changed sysctl behind, whatever the single tests said. Every test
// directory goes under one fresh TMPDIR, so what other packages' tests
// mount meanwhile is not mistaken for a leak.
func TestMain(m *testing.M) {
	tmp, err := os.MkdirTemp("", "perfbisect-knob-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("TMPDIR", tmp)
	before := hostSnapshot(tmp)
	code := m.Run()
	if after := hostSnapshot(tmp); after != before {
		fmt.Fprintf(os.Stderr, "the tests left the host changed:\nbefore:\n%s\nafter:\n%s\n", before, after)
		code = 1
	}
	if err := os.Remove(tmp); err != nil {
		fmt.Fprintf(os.Stderr, "the tests left files behind: %v\n", err)
		code = 1
	}
	os.Exit(code)
}

// hostSnapshot lists what the tests could leave behind: mounts under tmp
// or /dev/shm, loop devices over files under tmp, the sysctls they change.
func hostSnapshot(tmp string) string {
	var b strings.Builder
	ms, err := sysinfo.Mounts()
	if err != nil {
		return err.Error()
	}
	for _, m := range ms {
		if sysinfo.Within(m.Point, tmp) || sysinfo.Within(m.Point, shmDir) {
			fmt.Fprintf(&b, "mount %s %s %s %s %s\n", m.Point, m.FSType, m.Source, m.Opts, m.SuperOpts)
		}
	}
	out, _ := exec.Command("losetup", "-a").Output()
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, tmp) {
			fmt.Fprintf(&b, "loop device %s\n", l)
		}
	}
	for _, k := range watchedSysctls {
		v, _ := os.ReadFile(filepath.Join(procSys, k))
		fmt.Fprintf(&b, "sysctl %s = %s\n", k, strings.TrimSpace(string(v)))
	}
	shm, _ := filepath.Glob(filepath.Join(shmDir, "perfbisect-tmpfs-*"))
	fmt.Fprintf(&b, "dirs in %s: %v\n", shmDir, shm)
	return b.String()
}

// testCtx is a context that ends with the test, well before go test's
// own timeout, so a stuck command fails the test instead of hanging it.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// spec is the default workload writing to dir.
func spec(dir string) probe.Spec {
	w := probe.DefaultSpec()
	w.Dir = dir
	return w
}

func newKnob(t *testing.T, name string, s Settings) Knob {
	t.Helper()
	k, err := New(name, s)
	if err != nil {
		t.Fatalf("New(%q, %v): %v", name, s, err)
	}
	return k
}

// mountAt returns the mount on exactly dir, failing the test if there is none.
func mountAt(t *testing.T, dir string) sysinfo.Mount {
	t.Helper()
	ms, err := sysinfo.Mounts()
	if err != nil {
		t.Fatal(err)
	}
	m, ok := sysinfo.MountOf(ms, dir)
	if !ok || m.Point != dir {
		t.Fatalf("nothing is mounted on %s (the mount holding it is %s)", dir, m.Point)
	}
	return m
}

func mounted(t *testing.T, dir string) bool {
	t.Helper()
	m, err := sysinfo.IsMountPoint(dir)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// wantUnavailable checks err is an *Unavailable whose reason says want.
func wantUnavailable(t *testing.T, err error, want string) {
	t.Helper()
	var u *Unavailable
	if !errors.As(err, &u) {
		t.Fatalf("err = %v, want *Unavailable", err)
	}
	if !strings.Contains(u.Reason, want) {
		t.Errorf("reason %q does not say %q", u.Reason, want)
	}
}

// wantErr checks err is a plain error (not *Unavailable) saying each of want.
func wantErr(t *testing.T, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("err = nil, want an error saying %q", want)
	}
	var u *Unavailable
	if errors.As(err, &u) {
		t.Fatalf("err = %v, want a plain error, not *Unavailable", err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
}

// operator answers manual knobs in tests and records what it was asked.
type operator struct {
	answers []bool // one per call; the last repeats
	err     error
	calls   []askCall
}

type askCall struct {
	title string
	lines []string
}

func (o *operator) Manual(ctx context.Context, title string, lines []string) (bool, error) {
	o.calls = append(o.calls, askCall{title, lines})
	if o.err != nil {
		return false, o.err
	}
	if len(o.answers) == 0 {
		return true, nil
	}
	a := o.answers[0]
	if len(o.answers) > 1 {
		o.answers = o.answers[1:]
	}
	return a, nil
}
