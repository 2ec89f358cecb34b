package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/lab"
	"github.com/spf13/cobra"
)

func newProbeCmd(stdout, stderr io.Writer) *cobra.Command {
	spec := probe.DefaultSpec()
	var asJSON bool
	c := &cobra.Command{
		Use:   "probe",
		Short: "Measure how fast this host makes small writes durable, second by second",
		Long: `probe writes blocks of --bs bytes into a preallocated file in --dir and makes
each write durable (fdatasync by default), like
fio --ioengine=sync --fdatasync=1 --rw=write. It prints one line per second
(throughput, latency percentiles, errors), then a summary computed over every
operation of the run.`,
		Example: `  perfbisect probe                           # 10s, 4KiB + fdatasync, in a fresh dir here
  perfbisect probe --dir /var/lib/mysql/probe --duration 60s
  perfbisect probe --bs 16k --sync fsync --threads 4 --json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := spec.Validate(); err != nil {
				return usageError(fmt.Errorf("%v (see '%s --help')", err, c.CommandPath()))
			}
			return runProbe(c.Context(), spec, asJSON, stdout, stderr)
		},
	}
	f := c.Flags()
	f.StringVar(&spec.Dir, "dir", "", "directory for the data files (default: a fresh directory under the current one)")
	f.Var(&spec.BS, "bs", "block size of each write: 2300, 4k, 16KiB, ...")
	f.Var(&spec.FileSize, "file-size", "size of each writer's file; writes wrap around at its end")
	f.Var(&spec.Sync, "sync", "how each write is made durable: fdatasync, fsync, dsync (O_DSYNC), direct (O_DIRECT + fdatasync), none")
	f.Var(&spec.Prealloc, "prealloc", "how files get their blocks before measuring: fallocate (as fio), write (zero-filled, every write an overwrite, like a database log), none (sparse)")
	f.IntVar(&spec.Threads, "threads", spec.Threads, "number of writers, each on its own file")
	f.DurationVar((*time.Duration)(&spec.Duration), "duration", time.Duration(spec.Duration), "how long to measure")
	f.BoolVar(&spec.Keep, "keep", false, "keep the data files (and a directory the probe created) afterwards")
	f.BoolVar(&asJSON, "json", false, "print JSON Lines: one sample object per second, then a summary object")
	return c
}

func runProbe(ctx context.Context, spec probe.Spec, asJSON bool, stdout, stderr io.Writer) error {
	w, err := probe.NewFsync(spec)
	if err != nil {
		return usageError(err)
	}
	if onLab, err := enterLab(spec.Dir); err != nil {
		return failure(err)
	} else if onLab && !asJSON {
		fmt.Fprintln(stdout, "on the lab's emulated volume: writes are throttled by the kernel (an emulation)")
	}
	samples, err := w.Run(ctx)
	if err != nil {
		return failure(err)
	}
	var enc interface {
		Sample(probe.Sample) error
		Summary(probe.Summary) error
	}
	if asJSON {
		enc = probe.NewJSONEncoder(stdout)
	} else {
		fmt.Fprintf(stdout, "probe: %s\n", spec.Describe())
		enc = probe.NewTextEncoder(stdout)
	}
	var writeErr error
	for s := range samples {
		if err := enc.Sample(s); err != nil && writeErr == nil {
			writeErr = err // keep draining: the workload stops on its own schedule
		}
	}
	sum := w.Result()
	if err := enc.Summary(sum); err != nil && writeErr == nil {
		writeErr = err
	}
	if !asJSON {
		fmt.Fprintf(stdout, "data files in %s %s\n", sum.Workload.Dir, keptOrRemoved(spec.Keep))
	}
	switch {
	case sum.Ended == probe.EndInterrupted:
		return errInterrupted
	case sum.Ended == probe.EndFailed:
		return failure(errors.New(sum.Error))
	case sum.Error != "":
		return failure(errors.New(sum.Error)) // the run completed but cleaning up failed
	case writeErr != nil:
		return failure(fmt.Errorf("write output: %v", writeErr))
	}
	return nil
}

func keptOrRemoved(keep bool) string {
	if keep {
		return "kept"
	}
	return "removed"
}

// enterLab puts this process in the lab's throttled cgroup when dir is on
// the lab's emulated volume, so that the probe measures the emulation.
func enterLab(dir string) (bool, error) {
	if dir == "" {
		return false, nil
	}
	st, err := lab.Load()
	if err != nil {
		return false, nil // no lab
	}
	abs, err := filepath.Abs(dir)
	if err != nil || !st.Contains(abs) {
		return false, nil
	}
	if err := st.Enter(os.Getpid()); err != nil {
		return false, fmt.Errorf("join the lab's cgroup %s: %v", st.Cgroup, err)
	}
	return true, nil
}
