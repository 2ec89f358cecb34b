package main

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/parse"
)

func newImportCmd(stdout, stderr io.Writer) *cobra.Command {
	format := "auto"
	c := &cobra.Command{
		Use:   "import FILE",
		Short: "Turn saved sysbench, pgbench or fio output into per-second samples",
		Long: `import reads the saved output of sysbench (1.x or 0.5, --report-interval=1),
pgbench (-P 1, from its stderr) or fio (--output-format=json or json+, with
--status-interval=1 for per-second numbers, json+ adding per-second latency
percentiles; or an iops, bandwidth or latency log written with
--log_avg_msec=1000) and writes its seconds and a summary as JSON Lines, the
format of 'perfbisect probe --json'. Only fields the tool really reports are
filled in, and each sample says which ("real"); notes on what is missing go
to stderr.`,
		Example: `  perfbisect import sysbench.txt
  pgbench -P 1 -T 60 2> pgbench.txt; perfbisect import pgbench.txt
  perfbisect import --format fio-log etcd_iops.1.log`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			switch format {
			case "auto", "sysbench", "pgbench", "fio", "fio-log":
			default:
				return usageError(fmt.Errorf("--format %q: want auto, sysbench, pgbench, fio or fio-log (see '%s --help')", format, c.CommandPath()))
			}
			return runImport(args[0], format, stdout, stderr)
		},
	}
	c.Flags().StringVar(&format, "format", format, "what FILE is: auto, sysbench, pgbench, fio (JSON or log) or fio-log")
	return c
}

func runImport(file, format string, stdout, stderr io.Writer) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return failure(err)
	}
	if format, err = parse.Resolve(file, data, format); err != nil {
		return failure(fmt.Errorf("%s: %w", file, err))
	}
	res, err := parse.Parse(bytes.NewReader(data), format)
	if err != nil {
		return failure(fmt.Errorf("%s: %w", file, err))
	}
	for _, n := range res.Notes {
		fmt.Fprintf(stderr, "%s: %s\n", res.Tool, n)
	}
	if len(res.Samples) == 0 && res.Summary == nil {
		return failure(fmt.Errorf("%s: no per-second samples or summary found in it", file))
	}
	enc := probe.NewJSONEncoder(stdout)
	for _, s := range res.Samples {
		if err := enc.Sample(s); err != nil {
			return failure(err)
		}
	}
	sum := res.Summary
	if sum == nil {
		var t probe.Tally
		for _, s := range res.Samples {
			t.Add(s)
		}
		computed, notes := t.Summary()
		computed.Ended, computed.Workload = probe.EndCompleted, probe.Spec{Workload: res.Tool}
		sum = &computed
		fmt.Fprintf(stderr, "%s: no summary in the file: computed from %d samples (percentiles are medians of the per-second values, the mean latency is weighted by operations)\n", res.Tool, len(res.Samples))
		for _, n := range notes {
			fmt.Fprintf(stderr, "%s: %s\n", res.Tool, n)
		}
	}
	if err := enc.Summary(*sum); err != nil {
		return failure(err)
	}
	return nil
}
