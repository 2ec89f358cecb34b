package sysinfo

import (
	"os"
	"runtime"
	"strings"
	"testing"
)

func TestKernel(t *testing.T) {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := Kernel(), strings.TrimSpace(string(b)); got != want {
		t.Errorf("Kernel() = %q, want %q", got, want)
	}
}

func TestCPUModel(t *testing.T) {
	if got := parseCPUModel(strings.NewReader(testdata(t, "cpuinfo"))); got != "AMD EPYC" {
		t.Errorf("model of testdata/cpuinfo = %q, want AMD EPYC", got)
	}
	uu := map[string]string{
		"power":   "processor\t: 0\ncpu\t\t: POWER9 (architected), altivec supported\nclock\t\t: 2200MHz\n",
		"arm64":   "processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\n",
		"x86 two": "model name\t: A\n\nmodel name\t: B\n",
		"empty":   "",
	}
	want := map[string]string{"power": "POWER9 (architected), altivec supported", "x86 two": "A"}
	for name, in := range uu {
		if got := parseCPUModel(strings.NewReader(in)); got != want[name] {
			t.Errorf("%s: parseCPUModel = %q, want %q", name, got, want[name])
		}
	}
	if runtime.GOARCH == "amd64" && CPUModel() == "" {
		t.Error("CPUModel() is empty on x86")
	}
}

func TestMemInfo(t *testing.T) {
	n, err := parseMemInfo(strings.NewReader(testdata(t, "meminfo")), "MemTotal")
	if n != 24683652*1024 || err != nil {
		t.Errorf("MemTotal of testdata/meminfo = %d, %v; want 24683652 kB", n, err)
	}
	uu := map[string]struct {
		in   string
		want int64
		err  string
	}{
		"count":    {"HugePages_Total:       3\n", 3, ""},
		"missing":  {"MemFree: 1 kB\n", 0, "has no HugePages_Total"},
		"bad unit": {"HugePages_Total: 1 MB\n", 0, "want a number of kB"},
		"negative": {"HugePages_Total: -1\n", 0, "want a number of kB"},
		"overflow": {"HugePages_Total: 99999999999999999 kB\n", 0, "want a number of kB"},
	}
	for name, u := range uu {
		n, err := parseMemInfo(strings.NewReader(u.in), "HugePages_Total")
		if n != u.want || (err == nil) != (u.err == "") || err != nil && !strings.Contains(err.Error(), u.err) {
			t.Errorf("%s: parseMemInfo = %d, %v; want %d, %q", name, n, err, u.want, u.err)
		}
	}

	total, err := MemTotal()
	if err != nil || total <= 0 {
		t.Fatalf("MemTotal() = %d, %v", total, err)
	}
	if avail, err := MemAvailable(); err != nil || avail <= 0 || avail > total {
		t.Errorf("MemAvailable() = %d, %v; want between 0 and MemTotal %d", avail, err, total)
	}
}

func FuzzParseMemInfo(f *testing.F) {
	f.Add(testdata(f, "meminfo"))
	f.Fuzz(func(t *testing.T, s string) {
		if n, err := parseMemInfo(strings.NewReader(s), "MemTotal"); err == nil && n < 0 {
			t.Errorf("parseMemInfo(%q) = %d, a negative size", s, n)
		}
	})
}

func FuzzParseCPUModel(f *testing.F) {
	f.Add(testdata(f, "cpuinfo"))
	f.Fuzz(func(t *testing.T, s string) {
		if m := parseCPUModel(strings.NewReader(s)); m != strings.TrimSpace(m) {
			t.Errorf("parseCPUModel(%q) = %q, not trimmed", s, m)
		}
	})
}
