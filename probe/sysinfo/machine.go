package sysinfo

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Kernel is the kernel's release, as uname -r prints it ("" if unknown).
func Kernel() string {
	var u syscall.Utsname
	if err := syscall.Uname(&u); err != nil {
		return ""
	}
	b := make([]byte, 0, len(u.Release))
	for _, c := range u.Release {
		if c == 0 {
			break
		}
		b = append(b, byte(c))
	}
	return string(b)
}

// CPUModel is the CPU's name from /proc/cpuinfo ("" if unknown).
func CPUModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	return parseCPUModel(f)
}

// cpuModelKeys are the /proc/cpuinfo fields that name the CPU, best first:
// x86 has "model name", POWER "cpu", MIPS "cpu model", 32-bit ARM
// "Hardware". 64-bit ARM names none.
var cpuModelKeys = []string{"model name", "cpu", "cpu model", "Hardware"}

// parseCPUModel reads "key<TAB>: value" lines, one block per CPU; the first
// CPU names them all.
func parseCPUModel(r io.Reader) string {
	found := map[string]string{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if _, dup := found[k]; !dup && v != "" {
			found[k] = v
		}
	}
	for _, k := range cpuModelKeys {
		if v, ok := found[k]; ok {
			return v
		}
	}
	return ""
}

// MemTotal is the memory the kernel manages, in bytes.
func MemTotal() (int64, error) { return memInfo("MemTotal") }

// MemAvailable is the memory the kernel could give without swapping, in
// bytes.
func MemAvailable() (int64, error) { return memInfo("MemAvailable") }

func memInfo(key string) (int64, error) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return parseMemInfo(f, key)
}

// parseMemInfo finds one field of /proc/meminfo: "MemTotal:  16379292 kB".
func parseMemInfo(r io.Reader, key string) (int64, error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		v, ok := strings.CutPrefix(sc.Text(), key+":")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 0 || len(f) > 2 || len(f) == 2 && f[1] != "kB" {
			return 0, fmt.Errorf("/proc/meminfo: %s %q: want a number of kB", key, strings.TrimSpace(v))
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || n < 0 || n > math.MaxInt64/1024 {
			return 0, fmt.Errorf("/proc/meminfo: %s %q: want a number of kB", key, strings.TrimSpace(v))
		}
		if len(f) == 2 {
			n *= 1024
		}
		return n, nil
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("read /proc/meminfo: %v", err)
	}
	return 0, fmt.Errorf("/proc/meminfo has no %s", key)
}
