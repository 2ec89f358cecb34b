package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/testutil"
	"github.com/perfbisect/perfbisect/probe"
)

// runCLI runs the program as main would and returns its exit code and output.
func runCLI(t *testing.T, ctx context.Context, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(ctx, args, &out, &errb)
	code = exitCode(err, &errb)
	return code, out.String(), errb.String()
}

// decodeRun reads what probe --json and import print: the samples, then
// the summary (nil when there is none). A line it cannot read fails the test.
func decodeRun(t *testing.T, out string) ([]probe.Sample, *probe.Summary) {
	t.Helper()
	d := probe.NewDecoder(strings.NewReader(out))
	var ss []probe.Sample
	var sum *probe.Summary
	for d.Scan() {
		r := d.Record()
		switch {
		case r.Sample != nil:
			ss = append(ss, *r.Sample)
		case r.Summary != nil:
			sum = r.Summary
		}
	}
	if err := d.Err(); err != nil {
		t.Fatalf("decode: %v\n%s", err, out)
	}
	return ss, sum
}

// failsBeforeAnything runs perfbisect with args in dir, and wants a usage
// error that says each of says, nothing measured, and nothing left in dir
// but the keep files the test put there.
func failsBeforeAnything(t *testing.T, dir string, keep int, args []string, says ...string) {
	t.Helper()
	t.Chdir(dir)
	code, stdout, stderr := runCLI(t, context.Background(), args...)
	if code != exitUsage {
		t.Errorf("exit %d, want %d; stderr: %s", code, exitUsage, stderr)
	}
	for _, want := range says {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr %q does not say %q", stderr, want)
		}
	}
	if stdout != "" {
		t.Errorf("a usage error measured something: %s", stdout)
	}
	if left := testutil.Entries(t, dir); len(left) != keep {
		t.Errorf("a usage error left %v", left)
	}
}

func TestUsageErrors(t *testing.T) {
	uu := map[string]struct {
		args []string
		want []string
	}{
		"bad sync":        {[]string{"probe", "--sync", "bogus"}, []string{"bogus", "fdatasync, fsync, dsync, direct, none"}},
		"zero bs":         {[]string{"probe", "--bs", "0"}, []string{"--bs", "2300, 4k or 16KiB"}},
		"bad bs":          {[]string{"probe", "--bs", "4q"}, []string{"4q", "KiB"}},
		"negative time":   {[]string{"probe", "--duration", "-1s"}, []string{"--duration -1s", "at least 1s"}},
		"zero threads":    {[]string{"probe", "--threads", "0"}, []string{"--threads 0", "1 to 256"}},
		"bad prealloc":    {[]string{"probe", "--prealloc", "maybe"}, []string{"fallocate, write, none"}},
		"unknown flag":    {[]string{"probe", "--fsync"}, []string{"unknown flag: --fsync", "--help"}},
		"stray argument":  {[]string{"probe", "/tmp"}, []string{"unknown command \"/tmp\""}},
		"unknown command": {[]string{"bisect"}, []string{"unknown command \"bisect\""}},
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) { failsBeforeAnything(t, t.TempDir(), 0, u.args, u.want...) })
	}
}

func TestProbeBadDirFailsBeforeMeasuring(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "missing", "probe")
	code, stdout, stderr := runCLI(t, context.Background(), "probe", "--dir", dir)
	if code != exitFailure {
		t.Errorf("exit %d, want 1", code)
	}
	if !strings.Contains(stderr, dir) || !strings.Contains(stderr, "no such file or directory") {
		t.Errorf("stderr %q does not give the path and the reason", stderr)
	}
	if strings.Contains(stdout, "ops/s") {
		t.Errorf("measured before failing: %s", stdout)
	}
}

func TestProbeJSONIsReadByTheDecoder(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := runCLI(t, context.Background(), "probe", "--json", "--duration", "2s", "--dir", dir, "--file-size", "4m")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	samples, sum := decodeRun(t, stdout)
	if len(samples) != 2 || sum == nil {
		t.Fatalf("got %d samples and summary %v:\n%s", len(samples), sum, stdout)
	}
	if sum.Ended != probe.EndCompleted || sum.Ops == 0 || sum.Workload.Dir != dir || sum.Workload.FileSize != 4*probe.MiB {
		t.Errorf("summary %+v", sum)
	}
	if lines := strings.Count(stdout, "\n"); lines != 3 {
		t.Errorf("%d lines, want 2 samples and a summary:\n%s", lines, stdout)
	}
}

func TestProbeHumanOutput(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := runCLI(t, context.Background(), "probe", "--duration", "1s", "--dir", dir, "--file-size", "4m", "--sync", "none")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 6 {
		t.Fatalf("want a description, a header, one second, the summary row and two notes:\n%s", stdout)
	}
	for i, want := range []string{"probe: 4KiB writes without sync, 1 writer on 4MiB files, 1s", " sec ", "   1 ", " all ", "operations in 1.", "data files in " + dir + " removed"} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("line %d %q does not contain %q", i+1, lines[i], want)
		}
	}
}

func TestProbeDiskFullIsCutShort(t *testing.T) {
	dir := testutil.Tmpfs(t, "1m")
	code, stdout, stderr := runCLI(t, context.Background(), "probe", "--dir", dir, "--prealloc", "none", "--duration", "30s")
	if code != exitFailure {
		t.Errorf("exit %d, want 1", code)
	}
	if !strings.Contains(stderr, "no space left on device") || !strings.Contains(stderr, "cut short") {
		t.Errorf("stderr %q", stderr)
	}
	if !strings.Contains(stdout, "cut short (failed)") || !strings.Contains(stdout, "   1 ") {
		t.Errorf("the measured seconds and summary are not printed:\n%s", stdout)
	}
	if left := testutil.Entries(t, dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

func TestExitCode(t *testing.T) {
	uu := map[string]struct {
		err  error
		code int
	}{
		"ok":          {nil, 0},
		"failure":     {failure(errors.New("boom")), 1},
		"usage":       {usageError(errors.New("bad")), 2},
		"cobra":       {errors.New(`unknown command "x"`), 2},
		"interrupted": {errInterrupted, 130},
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if got := exitCode(u.err, &b); got != u.code {
				t.Errorf("code %d, want %d", got, u.code)
			}
			if (u.err == nil) != (b.Len() == 0) {
				t.Errorf("printed %q for %v", b.String(), u.err)
			}
		})
	}
}

// TestInterruptedBinary sends a real SIGINT to the real binary.
func TestInterruptedBinary(t *testing.T) {
	bin := binary(t)
	dir := filepath.Join(t.TempDir(), "probe")
	cmd := exec.Command(bin, "probe", "--dir", dir, "--duration", "60s", "--file-size", "4m")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	sent := time.Now()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		cmd.Process.Signal(syscall.SIGKILL)
		t.Fatal("still running 5s after SIGINT")
	}
	if d := time.Since(sent); d > time.Second {
		t.Errorf("took %v to stop after SIGINT, want under 1s", d)
	}
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
		t.Errorf("exit %d, want 130; stderr: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "   1 ") || !strings.Contains(out.String(), "cut short (interrupted)") {
		t.Errorf("no seconds or summary after SIGINT:\n%s", out.String())
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the probe directory it created is still there: %v", err)
	}
}
