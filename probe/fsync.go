package probe

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/perfbisect/perfbisect/internal/pathx"
)

// Workload is a measurement that runs once: Run prepares it (an error there
// means nothing was measured) and sends one Sample per second until the
// duration ends, ctx is cancelled or the workload fails; the channel is then
// closed, and Result is the summary of the seconds it measured.
type Workload interface {
	Run(ctx context.Context) (<-chan Sample, error)
	Result() Summary
}

var _ Workload = (*Fsync)(nil)

// Fsync is the built-in write probe: each writer writes blocks of Spec.BS
// into its own preallocated file, wrapping around at Spec.FileSize, and makes
// every write durable as Spec.Sync says. It is the measurement of
// `fio --ioengine=sync --fdatasync=1 --rw=write` and of pg_test_fsync.
type Fsync struct {
	spec Spec

	result Summary // set before the sample channel is closed
}

// NewFsync checks the spec and returns the workload, ready to Run once.
func NewFsync(spec Spec) (*Fsync, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	return &Fsync{spec: spec}, nil
}

// Run prepares the files (an error here means nothing was measured), then
// measures in the background and sends one Sample per second. The channel is
// closed when the run ends (its duration is over, ctx is cancelled, or an
// operation failed) and its files are removed; the caller must drain it, and
// may then read Result.
func (w *Fsync) Run(ctx context.Context) (<-chan Sample, error) {
	ws, err := prepare(w.spec)
	if err != nil {
		return nil, err
	}
	out := make(chan Sample, 16)
	go func() {
		defer close(out)
		w.result = ws.measure(ctx, out)
		w.result.Workload = ws.spec
		if err := ws.cleanup(); err != nil && w.result.Error == "" {
			w.result.Error = err.Error()
		}
	}()
	return out, nil
}

// Result is the summary of the run; valid once the sample channel is closed.
func (w *Fsync) Result() Summary { return w.result }

// workspace is the directory and files of one run.
type workspace struct {
	spec       Spec
	createdDir bool
	files      []*dataFile
}

func prepare(spec Spec) (*workspace, error) {
	ws := &workspace{spec: spec}
	if err := ws.makeDir(); err != nil {
		return nil, err
	}
	for i := range spec.Threads {
		path := filepath.Join(ws.spec.Dir, fmt.Sprintf("perfbisect-probe-%d.dat", i))
		f, err := openDataFile(path, spec.FileSize, spec.Sync, spec.Prealloc)
		if err != nil {
			os.Remove(path) // it may exist though it could not be opened or sized
			return nil, errors.Join(err, ws.cleanup())
		}
		ws.files = append(ws.files, f)
	}
	return ws, nil
}

// makeDir resolves the data directory: a fresh one under the current
// directory when none is given, else the one given, created if its parent
// exists.
func (ws *workspace) makeDir() error {
	if ws.spec.Dir == "" {
		dir, err := os.MkdirTemp(".", ".perfbisect-probe-")
		if err != nil {
			return fmt.Errorf("create a probe directory in the current directory: %v (use --dir to choose a writable one)", pathx.Bare(err))
		}
		ws.createdDir = true
		ws.spec.Dir = dir
	}
	abs, created, err := pathx.MakeDir(ws.spec.Dir, 0o700)
	if err != nil {
		return err
	}
	ws.spec.Dir, ws.createdDir = abs, ws.createdDir || created
	return nil
}

// cleanup closes and removes what prepare made, unless Spec.Keep.
func (ws *workspace) cleanup() error {
	var errs []error
	for _, f := range ws.files {
		if err := f.close(); err != nil {
			errs = append(errs, fmt.Errorf("close %s: %v", f.path, err))
		}
		if !ws.spec.Keep {
			if err := os.Remove(f.path); err != nil && !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, fmt.Errorf("remove %s: %v", f.path, pathx.Bare(err)))
			}
		}
	}
	ws.files = nil
	if ws.createdDir && !ws.spec.Keep {
		if err := os.Remove(ws.spec.Dir); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove %s: %v", ws.spec.Dir, pathx.Bare(err)))
		}
		ws.createdDir = false
	}
	return errors.Join(errs...)
}

// measure runs the writers and cuts one sample per second until the duration
// is over, ctx is done, or a writer fails.
func (ws *workspace) measure(ctx context.Context, out chan<- Sample) Summary {
	var (
		stop    atomic.Bool
		failed  = make(chan struct{})
		failure error
		once    sync.Once
		wg      sync.WaitGroup
	)
	fail := func(err error) {
		once.Do(func() { failure = err; close(failed) })
	}
	defer reserveProcs(len(ws.files))()
	start := time.Now()
	meter := NewMeter(len(ws.files), start)
	for i, f := range ws.files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := writeLoop(f, ws.spec, meter.Recorder(i), &stop); err != nil {
				fail(err)
			}
		}()
	}
	halt := func() {
		stop.Store(true)
		wg.Wait()
	}

	duration := time.Duration(ws.spec.Duration)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for sec := 1; ; sec++ {
		next := min(time.Duration(sec)*time.Second, duration)
		timer.Reset(time.Until(start.Add(next)))
		select {
		case <-timer.C:
			if next < duration {
				out <- meter.Cut(time.Now())
				continue
			}
			halt()
			out <- meter.Cut(time.Now())
			s := meter.Summary()
			s.Ended = EndCompleted
			return s
		case <-ctx.Done():
			halt()
			// Keep the partial second unless it is too short to mean
			// anything; its few operations then stay out of the summary,
			// which covers exactly the samples sent.
			if now := time.Now(); now.Sub(start.Add(time.Duration(sec-1)*time.Second)) >= 200*time.Millisecond {
				out <- meter.Cut(now)
			}
			s := meter.Summary()
			s.Ended = EndInterrupted
			s.Error = "interrupted: the summary covers the seconds measured before the stop"
			return s
		case <-failed:
			halt()
			out <- meter.Cut(time.Now())
			s := meter.Summary()
			s.Ended = EndFailed
			s.Error = fmt.Sprintf("%v; the run was cut short after %.1fs", failure, s.DurationS)
			return s
		}
	}
}

// writeLoop is the hot loop: one clock read per operation (the end of one
// operation is the start of the next), no allocation.
func writeLoop(f *dataFile, spec Spec, rec *Recorder, stop *atomic.Bool) error {
	bs := int(spec.BS)
	buf := alignedBuffer(bs)
	fillRandom(buf)
	limit := int64(spec.FileSize) - int64(spec.FileSize)%int64(bs)
	var off int64
	prev := time.Now()
	for !stop.Load() {
		err := f.write(buf, off)
		now := time.Now()
		if err != nil {
			rec.Error()
			return fmt.Errorf("write %v at offset %d of %s: %w", spec.BS, off, f.path, err)
		}
		rec.Record(now.Sub(prev), bs)
		prev = now
		if off += int64(bs); off >= limit {
			off = 0
		}
	}
	return nil
}

// fillRandom makes the blocks incompressible, so a compressing or
// deduplicating device cannot flatter the numbers.
func fillRandom(b []byte) {
	r := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
}
