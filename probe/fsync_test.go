package probe

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/fioref"
	"github.com/perfbisect/perfbisect/internal/testutil"
)

// runFsync runs a spec to the end and returns its samples and summary.
func runFsync(t *testing.T, ctx context.Context, spec Spec) ([]Sample, Summary) {
	t.Helper()
	w, err := NewFsync(spec)
	if err != nil {
		t.Fatalf("NewFsync: %v", err)
	}
	ch, err := w.Run(ctx)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	var got []Sample
	for s := range ch {
		got = append(got, s)
	}
	return got, w.Result()
}

func shortSpec(dir string, d time.Duration) Spec {
	s := DefaultSpec()
	s.Dir = dir
	s.Duration = Duration(d)
	s.FileSize = 4 * MiB
	return s
}

// checkSamples holds for every healthy run: one sample per second in order,
// ordered percentiles, and a summary that accounts for every operation.
func checkSamples(t *testing.T, samples []Sample, sum Summary, wantSecs int) {
	t.Helper()
	if len(samples) != wantSecs {
		t.Fatalf("got %d samples, want %d: %+v", len(samples), wantSecs, samples)
	}
	var ops float64
	for i, s := range samples {
		if s.Sec != i+1 {
			t.Errorf("sample %d has sec %d", i, s.Sec)
		}
		if s.OpsPerS <= 0 || s.MiBPerS <= 0 {
			t.Errorf("sample %d measured nothing: %+v", i, s)
		}
		if !(s.P50Ms > 0 && s.P50Ms <= s.P95Ms && s.P95Ms <= s.P99Ms && s.P99Ms <= s.MaxMs) {
			t.Errorf("sample %d percentiles out of order: %+v", i, s)
		}
		if s.Errors != 0 {
			t.Errorf("sample %d: %d errors", i, s.Errors)
		}
		ops += s.OpsPerS // each sample is one second long, give or take the scheduler
	}
	if sum.Ended != EndCompleted || sum.Error != "" {
		t.Fatalf("summary ended %q (%s), want completed", sum.Ended, sum.Error)
	}
	if sum.Ops <= 0 || sum.Errors != 0 {
		t.Fatalf("summary: %+v", sum)
	}
	if diff := ops/float64(sum.Ops) - 1; diff < -0.05 || diff > 0.05 {
		t.Errorf("samples add up to %.0f ops, summary says %d", ops, sum.Ops)
	}
	if d := sum.DurationS - float64(wantSecs); d < 0 || d > 0.5 {
		t.Errorf("summary duration %.3fs, want about %ds", sum.DurationS, wantSecs)
	}
	if want := float64(sum.Ops) * 4096 / float64(MiB) / sum.DurationS; !near(sum.MiBPerS, want, 0.01) {
		t.Errorf("summary MiB/s %.3f, want %.3f", sum.MiBPerS, want)
	}
}

func near(got, want, rel float64) bool { return got >= want*(1-rel) && got <= want*(1+rel) }

func TestFsyncEverySyncMode(t *testing.T) {
	places := map[string]func(*testing.T) string{
		"disk":  func(t *testing.T) string { return t.TempDir() },
		"tmpfs": func(t *testing.T) string { return testutil.Tmpfs(t, "64m") },
	}
	for where, mkdir := range places {
		for _, mode := range syncModes {
			t.Run(where+"/"+string(mode), func(t *testing.T) {
				dir := mkdir(t)
				spec := shortSpec(dir, 2*time.Second)
				spec.Sync = mode
				samples, sum := runFsync(t, context.Background(), spec)
				checkSamples(t, samples, sum, 2)
				if sum.Workload.Dir != dir || sum.Workload.Sync != mode {
					t.Errorf("summary records workload %+v", sum.Workload)
				}
				if left := testutil.Entries(t, dir); len(left) != 0 {
					t.Errorf("left behind in %s: %v", dir, left)
				}
			})
		}
	}
}

func TestFsyncWritesRealDataAndKeeps(t *testing.T) {
	dir := t.TempDir()
	spec := shortSpec(dir, time.Second)
	spec.Threads = 3
	spec.Keep = true
	samples, sum := runFsync(t, context.Background(), spec)
	checkSamples(t, samples, sum, 1)
	for i := range 3 {
		path := filepath.Join(dir, "perfbisect-probe-"+string(rune('0'+i))+".dat")
		st, err := os.Stat(path)
		if err != nil {
			t.Fatalf("--keep: %v", err)
		}
		if st.Size() != int64(spec.FileSize) {
			t.Errorf("%s is %d bytes, want %d", path, st.Size(), spec.FileSize)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Count(b[:4096], []byte{0}) > 64 {
			t.Errorf("%s: first block is not the probe's random data", path)
		}
	}
}

func TestFsyncDefaultDirIsFreshAndRemoved(t *testing.T) {
	cwd := t.TempDir()
	t.Chdir(cwd)
	samples, sum := runFsync(t, context.Background(), shortSpec("", time.Second))
	checkSamples(t, samples, sum, 1)
	if filepath.Dir(sum.Workload.Dir) != cwd || !strings.HasPrefix(filepath.Base(sum.Workload.Dir), ".perfbisect-probe-") {
		t.Errorf("default dir %s, want a fresh .perfbisect-probe-* under %s", sum.Workload.Dir, cwd)
	}
	if left := testutil.Entries(t, cwd); len(left) != 0 {
		t.Errorf("left behind in the current directory: %v", left)
	}
}

func TestFsyncDiskFillsDuringRun(t *testing.T) {
	dir := testutil.Tmpfs(t, "1m")
	spec := shortSpec(dir, 30*time.Second)
	spec.Prealloc = PreallocNone // sparse: the first lap allocates, and runs out
	spec.FileSize = 64 * MiB
	start := time.Now()
	samples, sum := runFsync(t, context.Background(), spec)
	if time.Since(start) > 10*time.Second {
		t.Errorf("a full disk took %v to stop the run", time.Since(start))
	}
	if sum.Ended != EndFailed {
		t.Fatalf("ended %q, want failed", sum.Ended)
	}
	for _, want := range []string{"no space left on device", "cut short", dir} {
		if !strings.Contains(sum.Error, want) {
			t.Errorf("error %q does not say %q", sum.Error, want)
		}
	}
	if sum.Errors != 1 || len(samples) == 0 || samples[len(samples)-1].Errors != 1 {
		t.Errorf("the failed write is not counted: summary %d errors, samples %+v", sum.Errors, samples)
	}
	// 1 MiB of 4 KiB blocks, less what tmpfs keeps for itself.
	if sum.Ops < 128 || sum.Ops > 256 {
		t.Errorf("%d writes fit in a 1 MiB tmpfs, want 128..256", sum.Ops)
	}
	if left := testutil.Entries(t, dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

func TestFsyncFullDiskFoundBeforeMeasuring(t *testing.T) {
	dir := testutil.Tmpfs(t, "1m")
	w, err := NewFsync(shortSpec(dir, time.Second)) // 4 MiB preallocated in 1 MiB
	if err != nil {
		t.Fatal(err)
	}
	_, err = w.Run(context.Background())
	if !errors.Is(err, syscall.ENOSPC) && (err == nil || !strings.Contains(err.Error(), "no space left")) {
		t.Fatalf("Run: %v, want a no-space error before measuring", err)
	}
	if !strings.Contains(err.Error(), "preallocate 4MiB in "+dir) {
		t.Errorf("error %q does not say what it tried where", err)
	}
	if left := testutil.Entries(t, dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

func TestFsyncStopsSoonAfterCancel(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	w, err := NewFsync(shortSpec(dir, time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	ch, err := w.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var samples []Sample
	samples = append(samples, <-ch)
	cancel()
	cancelled := time.Now()
	for s := range ch {
		samples = append(samples, s)
	}
	if d := time.Since(cancelled); d > time.Second {
		t.Errorf("stopped %v after the cancel, want under 1s", d)
	}
	sum := w.Result()
	if sum.Ended != EndInterrupted || sum.Ops == 0 {
		t.Errorf("after cancel: ended %q, %d ops", sum.Ended, sum.Ops)
	}
	// The summary covers exactly the seconds sent: whole ones, and the
	// partial last one when it lasted 200 ms or more (a slow receive here
	// can make it that long); a shorter one is left out of both.
	if d := sum.DurationS - float64(len(samples)); d < -0.8-0.05 || d > 0.05 {
		t.Errorf("summary of %.2fs for %d samples", sum.DurationS, len(samples))
	}
	if left := testutil.Entries(t, dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

func TestFsyncBadDirectories(t *testing.T) {
	file := filepath.Join(t.TempDir(), "plain-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	uu := map[string]struct {
		dir  func(t *testing.T) string
		want []string
	}{
		"parent missing": {
			dir:  func(t *testing.T) string { return filepath.Join(t.TempDir(), "no", "such") },
			want: []string{"no/such", "no such file or directory", "create it first"},
		},
		"not a directory": {
			dir:  func(*testing.T) string { return file },
			want: []string{file, "not a directory"},
		},
		"read-only": {
			dir: func(t *testing.T) string {
				testutil.RequireRoot(t)
				dir := t.TempDir()
				if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_RDONLY, "size=1m"); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { syscall.Unmount(dir, 0) })
				return dir
			},
			want: []string{"perfbisect-probe-0.dat", "read-only file system"},
		},
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) {
			dir := u.dir(t)
			w, err := NewFsync(shortSpec(dir, time.Second))
			if err != nil {
				t.Fatal(err)
			}
			if _, err = w.Run(context.Background()); err == nil {
				t.Fatal("Run succeeded")
			}
			for _, want := range u.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
		})
	}
}

// TestFsyncAgreesWithFio runs the probe and fio on the same directory. It is
// no speed target (make bench measures that): it catches a probe that does
// not measure what fio measures, such as one that skipped the fdatasync.
func TestFsyncAgreesWithFio(t *testing.T) {
	testutil.RequireTool(t, "fio")
	dir := t.TempDir()
	_, sum := runFsync(t, context.Background(), shortSpec(dir, 3*time.Second))
	fio, err := fioref.WriteIOPS(dir, int64(4*MiB), 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if r := sum.OpsPerS / fio; r < 1.0/3 || r > 3 {
		t.Errorf("probe %.0f ops/s, fio %.0f ops/s on %s: ratio %.2f, want within 3x", sum.OpsPerS, fio, dir, r)
	}
	t.Logf("probe %.0f ops/s, fio %.0f ops/s", sum.OpsPerS, fio)
}

func TestFsyncPreallocModes(t *testing.T) {
	for _, how := range preallocs {
		t.Run(string(how), func(t *testing.T) {
			dir := t.TempDir()
			spec := shortSpec(dir, time.Second)
			spec.FileSize = 256 * MiB // more than a second of writes covers
			spec.Prealloc = how
			spec.Keep = true
			samples, sum := runFsync(t, context.Background(), spec)
			checkSamples(t, samples, sum, 1)
			written := sum.Ops * 4096
			if written >= int64(spec.FileSize) {
				t.Skipf("the disk wrote %d bytes in a second: the whole file, nothing left sparse to check", written)
			}
			var st syscall.Stat_t
			if err := syscall.Stat(filepath.Join(dir, "perfbisect-probe-0.dat"), &st); err != nil {
				t.Fatal(err)
			}
			allocated := st.Blocks * 512
			switch how {
			case PreallocFallocate, PreallocWrite:
				if allocated < int64(spec.FileSize) {
					t.Errorf("%d bytes allocated, want the whole %v up front", allocated, spec.FileSize)
				}
			case PreallocNone:
				if allocated > written+int64(MiB) {
					t.Errorf("%d bytes allocated after writing %d: the file is not sparse", allocated, written)
				}
			}
		})
	}
}
