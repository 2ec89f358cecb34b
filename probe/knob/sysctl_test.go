package knob

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/perfbisect/perfbisect/internal/testutil"
)

// keepSysctl puts a setting back when the test ends if the knob did not.
func keepSysctl(t *testing.T, keys ...string) map[string]string {
	t.Helper()
	was := map[string]string{}
	for _, k := range keys {
		b, err := os.ReadFile(filepath.Join(procSys, k))
		if err != nil {
			t.Fatal(err)
		}
		was[k] = strings.TrimSpace(string(b))
	}
	t.Cleanup(func() {
		for _, k := range keys {
			if now := readProcSys(t, k); now != was[k] {
				t.Errorf("%s left at %s, putting back %s", k, now, was[k])
			}
		}
		// The byte count of a coupled pair wins when it was in use.
		for i := len(keys) - 1; i >= 0; i-- {
			if was[keys[i]] != "0" && readProcSys(t, keys[i]) != was[keys[i]] {
				writeSysctl(keys[i], was[keys[i]])
			}
		}
	})
	return was
}

func readProcSys(t *testing.T, key string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(procSys, key))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func TestSysctl(t *testing.T) {
	testutil.RequireRoot(t)
	ctx := testCtx(t)
	const key = "vm/dirty_expire_centisecs"
	was := keepSysctl(t, key)[key]
	n, err := strconv.Atoi(was)
	if err != nil {
		t.Fatal(err)
	}
	to := strconv.Itoa(n + 100)

	k := newKnob(t, "sysctl", Settings{"name": "vm.dirty_expire_centisecs", "value": to})
	plan, err := k.Plan(ctx, Env{Root: true}, spec(""))
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	if plan.Before != was || plan.Do[0] != "sysctl -w vm.dirty_expire_centisecs="+to || plan.Undo[0] != "sysctl -w vm.dirty_expire_centisecs="+was {
		t.Errorf("Plan = %+v", plan)
	}
	_, c, revert, err := k.Apply(ctx, Env{Root: true}, spec(""))
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if now := readProcSys(t, key); now != to || c.After != to {
		t.Errorf("after Apply %s = %s (After %q), want %s", key, now, c.After, to)
	}
	if err := revert(ctx); err != nil {
		t.Fatalf("revert: %v", err)
	}
	if now := readProcSys(t, key); now != was {
		t.Errorf("after revert %s = %s, want %s", key, now, was)
	}
	if err := revert(ctx); err != nil {
		t.Errorf("second revert: %v", err)
	}
}

// Writing vm.dirty_background_bytes zeroes vm.dirty_background_ratio; the
// revert must bring the ratio back, not leave both at zero.
func TestSysctlCoupled(t *testing.T) {
	testutil.RequireRoot(t)
	ctx := testCtx(t)
	was := keepSysctl(t, "vm/dirty_background_ratio", "vm/dirty_background_bytes")
	k := newKnob(t, "sysctl", Settings{"name": "vm.dirty_background_bytes", "value": "67108864"})
	_, c, revert, err := k.Apply(ctx, Env{Root: true}, spec(""))
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if readProcSys(t, "vm/dirty_background_bytes") != "67108864" || readProcSys(t, "vm/dirty_background_ratio") != "0" {
		t.Errorf("Apply did not set the byte count")
	}
	wantBefore := was["vm/dirty_background_bytes"] + " (vm.dirty_background_ratio = " + was["vm/dirty_background_ratio"] + ")"
	if c.Before != wantBefore {
		t.Errorf("Before = %q, want %q", c.Before, wantBefore)
	}
	if was["vm/dirty_background_bytes"] == "0" && c.Undo[0] != "sysctl -w vm.dirty_background_ratio="+was["vm/dirty_background_ratio"] {
		t.Errorf("Undo = %q, want the ratio written back", c.Undo)
	}
	if err := revert(ctx); err != nil {
		t.Fatalf("revert: %v", err)
	}
	for key, v := range was {
		if now := readProcSys(t, key); now != v {
			t.Errorf("after revert %s = %s, want %s", key, now, v)
		}
	}
}

func TestSysctlUnknown(t *testing.T) {
	k := newKnob(t, "sysctl", Settings{"name": "vm.dirty_ratoi", "value": "10"})
	_, err := k.Plan(testCtx(t), Env{Root: true}, spec(""))
	wantErr(t, err, "unknown setting vm.dirty_ratoi: there is no /proc/sys/vm/dirty_ratoi", "did you mean vm.dirty_ratio?", "sysctl -a")

	k = newKnob(t, "sysctl", Settings{"name": "vm", "value": "10"})
	_, err = k.Plan(testCtx(t), Env{Root: true}, spec(""))
	wantErr(t, err, "vm is a group of settings")
}

func TestSysctlRefused(t *testing.T) {
	testutil.RequireRoot(t)
	const key = "vm/dirty_expire_centisecs"
	was := keepSysctl(t, key)[key]
	_, _, _, err := newKnob(t, "sysctl", Settings{"name": "vm.dirty_expire_centisecs", "value": "soon"}).Apply(testCtx(t), Env{Root: true}, spec(""))
	wantErr(t, err, "sysctl -w vm.dirty_expire_centisecs=soon", "invalid argument")
	if now := readProcSys(t, key); now != was {
		t.Errorf("a refused value changed %s to %s", key, now)
	}
}

func TestSysctlNotRoot(t *testing.T) {
	_, err := newKnob(t, "sysctl", Settings{"name": "vm.dirty_ratio", "value": "10"}).Plan(testCtx(t), Env{}, spec(""))
	wantUnavailable(t, err, "setting vm.dirty_ratio needs root")

	_, err = newKnob(t, "sysctl", Settings{"name": "fs.file-nr", "value": "1"}).Plan(testCtx(t), Env{Root: true}, spec(""))
	wantUnavailable(t, err, "fs.file-nr is read-only")
}

func TestSysctlKey(t *testing.T) {
	uu := map[string]string{
		"vm.dirty_ratio":                   "vm/dirty_ratio",
		"vm/dirty_ratio":                   "vm/dirty_ratio",
		"/proc/sys/vm/dirty_ratio":         "vm/dirty_ratio",
		"net.ipv4.conf.eth0/100.rp_filter": "net/ipv4/conf/eth0.100/rp_filter",
		"net/ipv4/conf/eth0.100/rp_filter": "net/ipv4/conf/eth0.100/rp_filter",
		"kernel.sched_min_granularity_ns":  "kernel/sched_min_granularity_ns",
	}
	for name, want := range uu {
		got, err := sysctlKey(name)
		if err != nil || got != want {
			t.Errorf("sysctlKey(%q) = %q, %v; want %q", name, got, err, want)
		}
	}
	if got := sysctlName("net/ipv4/conf/eth0.100/rp_filter"); got != "net.ipv4.conf.eth0/100.rp_filter" {
		t.Errorf("sysctlName = %q, want net.ipv4.conf.eth0/100.rp_filter", got)
	}
}
