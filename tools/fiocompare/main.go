// Command fiocompare runs `perfbisect probe` and fio side by side on the same
// directory, alternating, and prints each tool's ops/s and their ratio. It is
// what `make bench` runs to hold the probe to "as good as fio".
//
//	go run ./tools/fiocompare -bin bin/perfbisect -rounds 5 -duration 5s DIR...
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/perfbisect/perfbisect/internal/fioref"
	"github.com/perfbisect/perfbisect/internal/series"
	"github.com/perfbisect/perfbisect/probe"
)

func main() {
	bin := flag.String("bin", "bin/perfbisect", "the perfbisect binary")
	rounds := flag.Int("rounds", 5, "alternating runs of each tool per directory")
	duration := flag.Duration("duration", 5*time.Second, "length of each run")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: fiocompare [-bin B] [-rounds N] [-duration D] LABEL=DIR...\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	if _, err := exec.LookPath("fio"); err != nil {
		fmt.Fprintln(os.Stderr, "fiocompare: fio is not installed (apt-get install fio)")
		os.Exit(1)
	}
	failed := false
	fmt.Printf("%-8s %5s %12s %12s %7s %12s\n", "where", "round", "probe ops/s", "fio ops/s", "ratio", "probe maxrss")
	for _, arg := range flag.Args() {
		label, dir, ok := strings.Cut(arg, "=")
		if !ok {
			label, dir = filepath.Base(arg), arg
		}
		var ratios, probes, fios []float64
		for r := 1; r <= *rounds; r++ {
			// Alternate which tool goes first, so neither always gets the
			// warmer (or more fragmented) file system.
			var p, f float64
			var rss int64
			var err error
			if r%2 == 1 {
				if p, rss, err = runProbe(*bin, dir, *duration); err == nil {
					f, err = fioref.WriteIOPS(dir, 64*1024*1024, *duration)
				}
			} else {
				if f, err = fioref.WriteIOPS(dir, 64*1024*1024, *duration); err == nil {
					p, rss, err = runProbe(*bin, dir, *duration)
				}
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "fiocompare: %s: %v\n", dir, err)
				failed = true
				break
			}
			probes, fios, ratios = append(probes, p), append(fios, f), append(ratios, p/f)
			fmt.Printf("%-8s %5d %12.0f %12.0f %7.3f %10dKB\n", label, r, p, f, p/f, rss)
		}
		if len(ratios) > 0 {
			fmt.Printf("%-8s %5s %12.0f %12.0f %7.3f   (medians of %d)\n", label, "med", series.Median(probes), series.Median(fios), series.Median(ratios), len(ratios))
		}
	}
	if failed {
		os.Exit(1)
	}
}

func runProbe(bin, dir string, d time.Duration) (opsPerS float64, maxRSSKB int64, err error) {
	cmd := exec.Command(bin, "probe", "--json", "--dir", dir, "--duration", d.String(), "--bs", "4k", "--file-size", "64MiB", "--sync", "fdatasync")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return 0, 0, fmt.Errorf("probe: %v: %s", err, errb.String())
	}
	var sum *probe.Summary
	dec := probe.NewDecoder(&out)
	for dec.Scan() {
		if r := dec.Record(); r.Summary != nil {
			sum = r.Summary
		}
	}
	if err := dec.Err(); err != nil {
		return 0, 0, fmt.Errorf("probe: its output: %v", err)
	}
	if sum == nil {
		return 0, 0, fmt.Errorf("probe: no summary in its output")
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		maxRSSKB = ru.Maxrss
	}
	return sum.OpsPerS, maxRSSKB, nil
}
