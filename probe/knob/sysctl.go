package knob

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/perfbisect/perfbisect/internal/pathx"
	"github.com/perfbisect/perfbisect/internal/shell"
	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/journal"
	"github.com/perfbisect/perfbisect/probe/sysinfo"
)

var sysctlSettings = map[string]string{
	"name":  "the kernel setting, as sysctl(8) names it, like vm.dirty_ratio (required)",
	"value": "its value for the step, like 10 (required)",
}

func init() {
	register(Kind{
		Name:     "sysctl",
		Summary:  "set a kernel setting under /proc/sys for the step, like vm.dirty_ratio",
		Settings: sysctlSettings,
		New:      newSysctl,
	})
}

// procSys is where the kernel's settings live.
const procSys = "/proc/sys"

// sysctlPartner pairs the writeback settings the kernel keeps as one: a
// ratio and a byte count where writing one zeroes the other. Putting back
// the ratio alone would leave the byte count at zero, so the one that was
// in use is what gets written back.
var sysctlPartner = map[string]string{
	"vm/dirty_ratio":            "vm/dirty_bytes",
	"vm/dirty_bytes":            "vm/dirty_ratio",
	"vm/dirty_background_ratio": "vm/dirty_background_bytes",
	"vm/dirty_background_bytes": "vm/dirty_background_ratio",
}

type sysctl struct {
	name, value string
	key         string // the path under /proc/sys: vm/dirty_ratio
	settings    Settings
}

func newSysctl(s Settings) (Knob, error) {
	name, err := required("sysctl", s, "name", "the kernel setting as sysctl(8) names it, like vm.dirty_ratio")
	if err != nil {
		return nil, err
	}
	value, err := required("sysctl", s, "value", "its value for the step, like 10")
	if err != nil {
		return nil, err
	}
	if strings.ContainsAny(value, "\n\x00") {
		return nil, fmt.Errorf("sysctl: value %q: want one line", value)
	}
	key, err := sysctlKey(name)
	if err != nil {
		return nil, err
	}
	return &sysctl{name: name, value: strings.TrimSpace(value), key: key, settings: s}, nil
}

// sysctlKey turns a sysctl name into its path under /proc/sys the way
// sysctl(8) does: dots separate the parts and a slash stands for a dot
// inside a part (net.ipv4.conf.eth0/100.rp_filter), unless the name uses
// slashes as separators (net/ipv4/conf/eth0.100/rp_filter).
func sysctlKey(name string) (string, error) {
	n := strings.TrimPrefix(strings.TrimSpace(name), procSys+"/")
	var parts []string
	if i := strings.IndexAny(n, "./"); i >= 0 && n[i] == '/' {
		parts = strings.Split(n, "/")
	} else {
		parts = strings.Split(n, ".")
		for i, p := range parts {
			parts[i] = strings.ReplaceAll(p, "/", ".")
		}
	}
	for _, p := range parts {
		if p == "" || p == "." || p == ".." || strings.IndexFunc(p, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-.:@+", r))
		}) >= 0 {
			return "", fmt.Errorf("sysctl: name %q: want a kernel setting as sysctl(8) names it, like vm.dirty_ratio", name)
		}
	}
	return strings.Join(parts, "/"), nil
}

// sysctlName is the dotted name of a key, as sysctl -w takes it.
func sysctlName(key string) string {
	parts := strings.Split(key, "/")
	for i, p := range parts {
		parts[i] = strings.ReplaceAll(p, ".", "/")
	}
	return strings.Join(parts, ".")
}

// sysctlState is a setting's value and, for a coupled pair, its partner's.
type sysctlState struct {
	value, partner, partnerValue string
}

func (s sysctlState) String() string {
	if s.partner == "" {
		return s.value
	}
	return fmt.Sprintf("%s (%s = %s)", s.value, sysctlName(s.partner), s.partnerValue)
}

func (k *sysctl) Plan(ctx context.Context, env Env, w probe.Spec) (Change, error) {
	c, _, err := k.plan(env)
	return c, err
}

func (k *sysctl) plan(env Env) (Change, sysctlState, error) {
	file := filepath.Join(procSys, k.key)
	st, err := os.Stat(file)
	if errors.Is(err, os.ErrNotExist) {
		return Change{}, sysctlState{}, fmt.Errorf("sysctl: unknown setting %s: there is no %s%s (list them with sysctl -a)", k.name, file, suggestSysctl(k.key))
	}
	if err != nil {
		return Change{}, sysctlState{}, fmt.Errorf("sysctl: %s: %v", k.name, pathx.Bare(err))
	}
	if st.IsDir() {
		return Change{}, sysctlState{}, fmt.Errorf("sysctl: %s is a group of settings, not one (list them with sysctl %s)", k.name, k.name)
	}
	before, err := readSysctl(k.key)
	if err != nil {
		return Change{}, sysctlState{}, err
	}
	c := Change{Knob: "sysctl", Settings: k.settings, Before: before.String(), After: k.value}
	restore := k.restoreKey(before)
	c.Do = []string{shell.Join("sysctl", "-w", sysctlName(k.key)+"="+k.value)}
	c.Undo = []string{shell.Join("sysctl", "-w", sysctlName(restore.key)+"="+restore.value)}
	switch {
	case st.Mode().Perm()&0o222 == 0:
		return c, before, &Unavailable{Knob: "sysctl", Reason: fmt.Sprintf("%s is read-only", k.name)}
	case !env.Root:
		return c, before, &Unavailable{Knob: "sysctl", Reason: fmt.Sprintf("setting %s needs root (it writes %s)", k.name, file)}
	}
	return c, before, nil
}

func (k *sysctl) Apply(ctx context.Context, env Env, w probe.Spec) (probe.Spec, Change, Revert, error) {
	c, before, err := k.plan(env)
	if err != nil {
		return w, c, nil, err
	}
	restore := k.restoreKey(before)
	revert := once(func(context.Context) error {
		if err := writeSysctl(restore.key, restore.value); err != nil {
			return fmt.Errorf("sysctl %s still changed: %v (put it back by hand: %s)", k.name, err, c.Undo[0])
		}
		now, err := readSysctl(k.key)
		if err != nil {
			return fmt.Errorf("sysctl %s may still be changed: %v (check it, and put it back by hand: %s)", k.name, err, c.Undo[0])
		}
		if fields(now.String()) != fields(before.String()) {
			return fmt.Errorf("sysctl %s is still %s, was %s (put it back by hand: %s)", k.name, now, before, c.Undo[0])
		}
		return nil
	})
	if err := will(env, fmt.Sprintf("sysctl %s set to %s (was %s)", k.name, k.value, before),
		journal.Action{Write: &journal.Write{File: filepath.Join(procSys, restore.key), Value: restore.value}}); err != nil {
		return w, c, nil, fmt.Errorf("sysctl: %v", err)
	}
	if err := writeSysctl(k.key, k.value); err != nil {
		// The kernel refuses a value as a whole, so nothing changed.
		return w, c, nil, fmt.Errorf("sysctl: %s: %v", c.Do[0], err)
	}
	after, err := readSysctl(k.key)
	if err != nil {
		return w, c, nil, errors.Join(fmt.Errorf("sysctl: %v", err), revert(ctx))
	}
	// The kernel may store a value its own way (010 reads back as 10):
	// After is what it holds, not what was asked for.
	c.After = after.String()
	return w, c, revert, nil
}

// restoreKey is the write that puts back a setting: its old value, or, for
// a coupled pair, whichever of the two was in use.
func (k *sysctl) restoreKey(before sysctlState) sysctlWrite {
	if before.partner != "" && before.partnerValue != "0" && before.value == "0" {
		return sysctlWrite{before.partner, before.partnerValue}
	}
	return sysctlWrite{k.key, before.value}
}

// sysctlWrite is one value written to one setting.
type sysctlWrite struct{ key, value string }

func readSysctl(key string) (sysctlState, error) {
	read := func(key string) (string, error) {
		b, err := os.ReadFile(filepath.Join(procSys, key))
		if err != nil {
			return "", fmt.Errorf("read %s: %v", filepath.Join(procSys, key), pathx.Bare(err))
		}
		return strings.TrimSpace(string(b)), nil
	}
	v, err := read(key)
	if err != nil {
		return sysctlState{}, err
	}
	s := sysctlState{value: v}
	if p, ok := sysctlPartner[key]; ok {
		pv, err := read(p)
		if err != nil {
			return sysctlState{}, err
		}
		s.partner, s.partnerValue = p, pv
	}
	return s, nil
}

func writeSysctl(key, value string) error {
	if err := sysinfo.WriteSys(filepath.Join(procSys, key), value); err != nil {
		return fmt.Errorf("write %s: %v", filepath.Join(procSys, key), err)
	}
	return nil
}

// fields normalises the whitespace of a multi-field value (kernel.printk
// reads back as tab-separated).
func fields(s string) string { return strings.Join(strings.Fields(s), " ") }

// suggestSysctl names the closest existing setting next to a mistyped one.
func suggestSysctl(key string) string {
	dir, base := filepath.Split(key)
	des, err := os.ReadDir(filepath.Join(procSys, dir))
	if err != nil {
		return ""
	}
	best, bestD := "", 4 // suggest only near misses
	for _, de := range des {
		if d := editDistance(base, de.Name()); d < bestD {
			best, bestD = de.Name(), d
		}
	}
	if best == "" {
		return ""
	}
	return ": did you mean " + sysctlName(dir+best) + "?"
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
