// Command calibrate holds the verdicts to their promise with real runs of
// the probe (it is what `make calibrate` runs; it needs root):
//
//   - A/A: pairs of identical runs on the same directory must come out
//     `same` or `inconclusive` (never regressed/improved) at least 19 times
//     in 20 on the playbook's default metric, and no pair may be called
//     regressed on any metric of the family the reproduce step is judged on
//     (verdict.CompareAll, at the family-wise level); each metric alone at
//     the plain level is shown beside it, for what the correction buys;
//   - a real 2x change must be called within 10 seconds per side: a loop
//     device's write IOPS throttled by the kernel (cgroup v1 blkio) to N and
//     then N/2. The kernel lets writes through in bursts and then stalls, so
//     the throttle halves the throughput and lengthens the tail while the
//     median write stays fast: it is judged on ops/s (and p99 is shown).
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/perfbisect/perfbisect/internal/series"
	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/session/verdict"
)

func main() {
	bin := flag.String("bin", "bin/perfbisect", "the perfbisect binary")
	dir := flag.String("dir", ".calibrate", "directory on the disk for the A/A runs")
	pairs := flag.Int("pairs", 20, "A/A pairs")
	secs := flag.Int("seconds", 10, "length of each run, in seconds")
	iops := flag.Int("iops", 1000, "throttled write IOPS of the first side of the 2x test (the second gets half)")
	flag.Parse()
	if err := os.MkdirAll(*dir, 0o700); err != nil {
		fail(err)
	}
	defer os.RemoveAll(*dir)
	warm := 2 * time.Second
	metrics := verdict.Family(verdict.DefaultMetric, probe.ProbeFields)

	fmt.Printf("A/A: %d pairs of %ds fdatasync probes in %s, per-second values after a %v warm-up\n", *pairs, *secs, *dir, warm)
	counts := map[string]map[verdict.Outcome]int{} // at the family-wise level
	plain := map[string]int{}                      // pairs called different on the metric alone
	anyRegressed, anyAlone := 0, 0                 // pairs called regressed on a metric of the family; the same, each metric at alpha 0.05
	for _, m := range metrics {
		counts[m] = map[verdict.Outcome]int{}
	}
	for i := 1; i <= *pairs; i++ {
		a, err := probeRun(*bin, *dir, *secs, "")
		if err != nil {
			fail(err)
		}
		b, err := probeRun(*bin, *dir, *secs, "")
		if err != nil {
			fail(err)
		}
		vs, err := verdict.CompareAll(verdict.Trim(a, warm), verdict.Trim(b, warm), verdict.Options{})
		if err != nil {
			fail(err)
		}
		regressed, alone := false, false
		for _, v := range vs {
			counts[v.Metric][v.Outcome]++
			regressed = regressed || v.Outcome == verdict.Regressed
			fmt.Printf("  %2d %-9s %s\n", i, v.Metric, v)
			o := judge(a, b, warm, verdict.Options{Metric: v.Metric}).Outcome
			if o == verdict.Regressed || o == verdict.Improved {
				plain[v.Metric]++
			}
			alone = alone || o == verdict.Regressed
		}
		if regressed {
			anyRegressed++
		}
		if alone {
			anyAlone++
		}
	}
	for _, m := range metrics {
		c := counts[m]
		wrong := c[verdict.Regressed] + c[verdict.Improved]
		fmt.Printf("A/A %-9s same %d, inconclusive %d, regressed %d, improved %d: %d of %d not called different (target >= %d); alone at alpha 0.05: %d called different\n",
			m, c[verdict.Same], c[verdict.Inconclusive], c[verdict.Regressed], c[verdict.Improved], *pairs-wrong, *pairs, *pairs*19/20, plain[m])
	}
	fmt.Printf("A/A any metric: %d of %d pairs called regressed on one of %s (target 0); %d without the family-wise correction\n",
		anyRegressed, *pairs, strings.Join(metrics, ", "), anyAlone)

	fmt.Printf("\n2x: a loop device throttled to %d, then %d write IOPS\n", *iops, *iops/2)
	if err := twice(*bin, *secs, *iops, warm, verdict.Options{Metric: "ops_per_s"}); err != nil {
		fail(err)
	}
}

// twice runs the probe on a throttled loop device at n and n/2 IOPS and
// says after how many seconds per side the verdict calls the regression.
func twice(bin string, secs, n int, warm time.Duration, opt verdict.Options) error {
	tmp, err := os.MkdirTemp("", "perfbisect-calibrate-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	img, mnt := filepath.Join(tmp, "disk.img"), filepath.Join(tmp, "mnt")
	if err := os.Mkdir(mnt, 0o700); err != nil {
		return err
	}
	if err := sh("truncate", "-s", "512M", img); err != nil {
		return err
	}
	out, err := exec.Command("losetup", "--find", "--show", img).Output()
	if err != nil {
		return fmt.Errorf("losetup: %v", err)
	}
	loop := strings.TrimSpace(string(out))
	defer sh("losetup", "-d", loop)
	if err := sh("mkfs.ext4", "-q", loop); err != nil {
		return err
	}
	if err := sh("mount", loop, mnt); err != nil {
		return err
	}
	defer sh("umount", mnt)
	majmin, err := os.ReadFile("/sys/block/" + filepath.Base(loop) + "/dev")
	if err != nil {
		return err
	}
	cg := "/sys/fs/cgroup/blkio/perfbisect-calibrate"
	if err := os.Mkdir(cg, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("cgroup v1 blkio: %v", err)
	}
	defer os.Remove(cg)
	limit := func(iops int) error {
		return os.WriteFile(cg+"/blkio.throttle.write_iops_device", fmt.Appendf(nil, "%s %d", strings.TrimSpace(string(majmin)), iops), 0o644)
	}
	defer limit(0)

	var runs [2][]probe.Sample
	for i, rate := range []int{n, n / 2} {
		if err := limit(rate); err != nil {
			return err
		}
		if runs[i], err = probeRun(bin, mnt, secs, cg); err != nil {
			return err
		}
		fmt.Printf("  %4d IOPS: median per second: %.0f ops/s, p50 %s ms, p99 %s ms\n", rate, median(runs[i], warm, "ops_per_s"),
			probe.MsText(median(runs[i], warm, "p50_ms")), probe.MsText(median(runs[i], warm, "p99_ms")))
	}
	called, on := 0, ""
	for k := 1; k <= secs; k++ {
		v := judge(runs[0][:min(k, len(runs[0]))], runs[1][:min(k, len(runs[1]))], warm, opt)
		if v.Outcome == verdict.Regressed && called == 0 {
			called = k
		}
		if k == secs {
			fmt.Printf("  after %ds per side: %s\n", k, v)
		}
		// As the reproduce step is judged: on every metric at once.
		vs, err := verdict.CompareAll(verdict.Trim(runs[0][:min(k, len(runs[0]))], warm), verdict.Trim(runs[1][:min(k, len(runs[1]))], warm), verdict.Options{})
		if err != nil {
			return err
		}
		if c := verdict.Clearest(vs); c >= 0 && on == "" {
			on = fmt.Sprintf("after %ds per side, %s (judged on %s)", k, verdict.Across(vs), vs[c].Metric)
		}
	}
	if on == "" {
		on = fmt.Sprintf("NOT within %ds per side", secs)
	}
	fmt.Printf("2x, every metric at the family-wise level: regressed %s\n", on)
	if called == 0 {
		fmt.Printf("2x: NOT called within %ds per side\n", secs)
		return nil
	}
	fmt.Printf("2x: called regressed on ops/s alone after %ds per side (target <= 10s)\n", called)
	return nil
}

func judge(a, b []probe.Sample, warm time.Duration, opt verdict.Options) verdict.Verdict {
	va, _ := verdict.Values(verdict.Trim(a, warm), opt.Metric)
	vb, _ := verdict.Values(verdict.Trim(b, warm), opt.Metric)
	return verdict.Compare(va, vb, opt)
}

func median(s []probe.Sample, warm time.Duration, metric string) float64 {
	v, _ := verdict.Values(verdict.Trim(s, warm), metric)
	return series.Median(v)
}

// probeRun runs the probe for secs seconds in dir, inside cgroup cg if set.
func probeRun(bin, dir string, secs int, cg string) ([]probe.Sample, error) {
	// Zero-filled files: every measured write is an overwrite, so no run
	// changes pace when it finishes its first lap.
	args := []string{"probe", "--json", "--dir", dir, "--duration", fmt.Sprintf("%ds", secs), "--file-size", "16MiB", "--prealloc", "write"}
	cmd := exec.Command(bin, args...)
	if cg != "" {
		// Join the cgroup, then become the probe, so that every write of it
		// is throttled.
		cmd = exec.Command("sh", append([]string{"-c", `echo $$ > "$0"/cgroup.procs && exec "$@"`, cg, bin}, args...)...)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("probe: %v: %s", err, errb.String())
	}
	d := probe.NewDecoder(&out)
	var s []probe.Sample
	for d.Scan() {
		if r := d.Record(); r.Sample != nil {
			s = append(s, *r.Sample)
		}
	}
	return s, d.Err()
}

func sh(name string, args ...string) error {
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, out)
	}
	return nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "calibrate:", err)
	os.Exit(1)
}
