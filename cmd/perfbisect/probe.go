package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/lab"
	"github.com/perfbisect/perfbisect/probe/tool"
	"github.com/spf13/cobra"
)

func newProbeCmd(stdout, stderr io.Writer) *cobra.Command {
	var wf *workloadFlags
	var dir string
	var asJSON bool
	c := &cobra.Command{
		Use:   "probe",
		Short: "Measure how fast this host makes small writes durable, second by second",
		Long: `probe writes blocks of --bs bytes into a preallocated file in --dir and makes
each write durable (fdatasync by default), like
fio --ioengine=sync --fdatasync=1 --rw=write. It prints one line per second
(throughput, latency percentiles, errors), then a summary computed over every
operation of the run.

With --workload it runs a tool instead and reads its per-second output:
sysbench on a throwaway MariaDB (or an existing server), pgbench on a
throwaway PostgreSQL, fio, or any command. A tool gives fewer numbers than
the probe (sysbench one percentile, pgbench an average): the others are
shown as "-", never invented.`,
		Example: `  perfbisect probe                           # 10s, 4KiB + fdatasync, in a fresh dir here
  perfbisect probe --dir /var/lib/mysql/probe --duration 60s
  perfbisect probe --bs 16k --sync fsync --threads 4 --json
  perfbisect probe --workload sysbench --test oltp_insert --threads 4 --dir /data
  perfbisect probe --workload pgbench --scale 10 --sync none   # PostgreSQL with fsync=off
  perfbisect probe --workload fio --args '--rw=randwrite --bs=4k --fdatasync=1 --size=256m'
  perfbisect probe --workload command --command 'my-bench' --pattern 'tps=(?P<ops>[0-9.]+)'`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			spec := wf.apply(probe.DefaultSpec())
			spec.Dir = dir
			if spec.Dir == "" && spec.Workload != probe.WorkloadFsync {
				spec.Dir = "."
			}
			if err := spec.Validate(); err != nil {
				return usageError(fmt.Errorf("%v (see '%s --help')", err, c.CommandPath()))
			}
			if err := tool.Require(spec); err != nil {
				return failure(err)
			}
			return runProbe(c.Context(), spec, asJSON, stdout, stderr)
		},
	}
	f := c.Flags()
	f.StringVar(&dir, "dir", "", "directory for the data files (default: a fresh directory under the current one)")
	wf = addWorkloadFlags(f, true)
	f.BoolVar(&asJSON, "json", false, "print JSON Lines: one sample object per second, then a summary object")
	return c
}

func runProbe(ctx context.Context, spec probe.Spec, asJSON bool, stdout, stderr io.Writer) error {
	w, err := tool.New(spec)
	if err != nil {
		return usageError(err)
	}
	if onLab, err := lab.EnterIfOn(spec.Dir, os.Getpid()); err != nil {
		return failure(err)
	} else if onLab && !asJSON {
		fmt.Fprintln(stdout, "on the lab's emulated volume: writes are throttled by the kernel (an emulation)")
	}
	if !asJSON {
		fmt.Fprintf(stdout, "probe: %s\n", spec.Describe())
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
	if !asJSON && spec.Workload == probe.WorkloadFsync {
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
