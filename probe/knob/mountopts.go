package knob

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/perfbisect/perfbisect/internal/proc"
	"github.com/perfbisect/perfbisect/internal/shell"
	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/journal"
	"github.com/perfbisect/perfbisect/probe/sysinfo"
)

var mountOptionsSettings = map[string]string{
	"options":    "the options to remount the data dir's filesystem with, like noatime or nobarrier,commit=60 (required)",
	"allow-root": "true to allow remounting the root filesystem / (default false: too risky)",
}

func init() {
	register(Kind{
		Name: "mount-options",
		Summary: "remount the data dir's filesystem with other options (mount -o remount,OPTIONS), " +
			"and remount it with the options it had",
		Settings: mountOptionsSettings,
		New:      newMountOptions,
	})
}

// What the revert can put back, and what it cannot:
//
// Options kept per mount (ro, nosuid, nodev, noexec, the atime family,
// nodiratime, nosymfollow) are all shown in mountinfo, so the revert states
// every one of them explicitly (suid, dev, exec, atime, diratime for the
// ones that were off): mount(8) merges the current options into a remount,
// so an option that is not named explicitly would stay as the step left it.
//
// Filesystem options are shown only when they differ from the default. One
// the step changed that was shown before is written back as it was; one
// that was not shown is put back by its opposite (nobarrier -> barrier,
// discard -> nodiscard, sync -> async) or, for a value, by the default
// perfbisect knows (ext4 commit=0, the default interval). A value option
// with no known default is refused at Plan, since it could not be undone.
// Options a filesystem cannot change on remount (ext4 data=) fail at Apply
// and change nothing. Remounting changes the filesystem for every mount of
// it, bind mounts included, unless bind is among the options.

// perMount are the options the kernel keeps for each mount, not for the
// filesystem; the value is the family an option belongs to.
var perMount = map[string]string{
	"rw": "ro", "ro": "ro",
	"suid": "suid", "nosuid": "suid",
	"dev": "dev", "nodev": "dev",
	"exec": "exec", "noexec": "exec",
	"atime": "atime", "noatime": "atime", "relatime": "atime", "norelatime": "atime",
	"strictatime": "atime", "nostrictatime": "atime",
	"diratime": "diratime", "nodiratime": "diratime",
	"symfollow": "symfollow", "nosymfollow": "symfollow",
}

// fsDefaults are the values that put a filesystem option back to its
// default when mountinfo did not show it before.
var fsDefaults = map[string]map[string]string{
	"ext4": {
		"commit":               "commit=0", // 0 means the default, 5s
		"barrier":              "barrier",  // for barrier=0; nobarrier is undone by barrier
		"min_batch_time":       "min_batch_time=0",
		"max_batch_time":       "max_batch_time=15000",
		"inode_readahead_blks": "inode_readahead_blks=32",
		"journal_ioprio":       "journal_ioprio=3",
	},
}

func init() {
	fsDefaults["ext3"] = fsDefaults["ext4"]
}

// notRemountable are options of /etc/fstab or of mount(8) itself, which a
// remount cannot take as a change.
var notRemountable = []string{"remount", "defaults", "move", "rbind", "loop", "user", "users", "nouser", "auto", "noauto", "nofail", "_netdev"}

type mountOptions struct {
	opts      []string
	allowRoot bool
	settings  Settings
}

func newMountOptions(s Settings) (Knob, error) {
	v, err := required("mount-options", s, "options", "the options to remount with, like noatime or nobarrier,commit=60")
	if err != nil {
		return nil, err
	}
	k := &mountOptions{settings: s}
	for _, o := range strings.Split(v, ",") {
		switch {
		case o == "" || strings.ContainsAny(o, " \t\n\"'\\"):
			return nil, fmt.Errorf("mount-options: options %q: want options separated by commas without spaces, like noatime or nobarrier,commit=60", v)
		case slices.Contains(notRemountable, o) || strings.HasPrefix(strings.ToLower(o), "x-"):
			return nil, fmt.Errorf("mount-options: options %q: %s is not an option a remount can change (want filesystem or mount options, like noatime or commit=60)", v, o)
		}
		k.opts = append(k.opts, o)
	}
	if a, ok := s["allow-root"]; ok {
		if k.allowRoot, err = parseBool("mount-options", "allow-root", a); err != nil {
			return nil, err
		}
	}
	return k, nil
}

// mountState is a mount's options as the mount table shows them.
type mountState struct {
	opts, super string
}

func stateOf(m sysinfo.Mount) mountState { return mountState{m.Opts, m.SuperOpts} }

func (s mountState) String() string { return s.opts + " (filesystem: " + s.super + ")" }

func (s mountState) equal(o mountState) bool {
	set := func(v string) []string { f := strings.Split(v, ","); slices.Sort(f); return f }
	return slices.Equal(set(s.opts), set(o.opts)) && slices.Equal(set(s.super), set(o.super))
}

func (k *mountOptions) Plan(ctx context.Context, env Env, w probe.Spec) (Change, error) {
	c, _, err := k.plan(env, w)
	return c, err
}

func (k *mountOptions) plan(env Env, w probe.Spec) (Change, sysinfo.Mount, error) {
	dir, m, err := dataMount(w)
	if err != nil {
		return Change{}, m, fmt.Errorf("mount-options: %v", err)
	}
	before := stateOf(m)
	c := Change{
		Knob:     "mount-options",
		Settings: k.settings,
		Do:       []string{shown(mount("remount,"+strings.Join(k.opts, ","), m.Point))},
		Before:   fmt.Sprintf("%s %s on %s: %s", m.FSType, m.Source, m.Point, before),
	}
	restore, unknown := k.restore(before, k.predict(before), m.FSType)
	c.Undo = []string{shown(mount(restore, m.Point))}
	onRoot, err := k.onRootFS(m)
	if err != nil {
		return c, m, fmt.Errorf("mount-options: %v", err)
	}
	switch {
	case onRoot && !k.allowRoot:
		return c, m, &Unavailable{Knob: "mount-options", Reason: fmt.Sprintf("%s is on the root filesystem /, and remounting / is too risky by default (set allow-root: \"true\" to do it anyway, or put the data dir on a filesystem of its own)", dir)}
	case len(unknown) > 0:
		return c, m, &Unavailable{Knob: "mount-options", Reason: fmt.Sprintf("%s could not be put back on %s %s: perfbisect does not know its default (use a shell step with your own revert)", strings.Join(unknown, ","), m.FSType, m.Point)}
	case !env.Root:
		return c, m, &Unavailable{Knob: "mount-options", Reason: fmt.Sprintf("remounting %s needs root", m.Point)}
	}
	if _, err := exec.LookPath("mount"); err != nil {
		return c, m, &Unavailable{Knob: "mount-options", Reason: "the mount command is not installed (apt-get install mount)"}
	}
	return c, m, nil
}

// onRootFS says whether remounting m changes the root filesystem: m is /,
// or a bind mount of the filesystem mounted on / (whose options a remount
// changes too, unless it is a bind remount of that mount alone).
func (k *mountOptions) onRootFS(m sysinfo.Mount) (bool, error) {
	if m.Point == "/" {
		return true, nil
	}
	ms, err := sysinfo.Mounts()
	if err != nil {
		return false, err
	}
	root, ok := sysinfo.MountOf(ms, "/")
	return ok && root.Dev == m.Dev && !slices.Contains(k.opts, "bind"), nil
}

func (k *mountOptions) Apply(ctx context.Context, env Env, w probe.Spec) (probe.Spec, Change, Revert, error) {
	c, m, err := k.plan(env, w)
	if err != nil {
		return w, c, nil, err
	}
	before := stateOf(m)
	revert := once(func(ctx context.Context) error { return k.revert(ctx, env, m, before) })
	predicted, _ := k.restore(before, k.predict(before), m.FSType)
	if err := will(env, fmt.Sprintf("mount options of %s changed to %s", m.Point, strings.Join(k.opts, ",")),
		journal.Action{Remount: &journal.Remount{Point: m.Point, Options: predicted}}); err != nil {
		return w, c, nil, fmt.Errorf("mount-options: %v", err)
	}
	if _, err := run(ctx, env, mount("remount,"+strings.Join(k.opts, ","), m.Point)); err != nil {
		// A refused remount changes nothing; the revert checks that and puts
		// back whatever did change.
		return w, c, nil, errors.Join(fmt.Errorf("mount-options: %v", err), revert(ctx))
	}
	now, err := currentMount(m)
	if err != nil {
		return w, c, nil, errors.Join(fmt.Errorf("mount-options: %v", err), revert(ctx))
	}
	after := stateOf(now)
	restore, _ := k.restore(before, after, m.FSType)
	c.Undo = []string{shown(mount(restore, m.Point))}
	if restore != predicted {
		if err := will(env, fmt.Sprintf("mount options of %s changed to %s", m.Point, strings.Join(k.opts, ",")),
			journal.Action{Remount: &journal.Remount{Point: m.Point, Options: restore}}); err != nil {
			return w, c, nil, errors.Join(fmt.Errorf("mount-options: %v", err), revert(ctx))
		}
	}
	c.After = fmt.Sprintf("%s %s on %s: %s", m.FSType, m.Source, m.Point, after)
	return w, c, revert, nil
}

// revert remounts m with the options it had, if they have changed, and
// checks the mount table shows them again.
func (k *mountOptions) revert(ctx context.Context, env Env, m sysinfo.Mount, before mountState) error {
	now, err := currentMount(m)
	if errors.Is(err, errMountGone) {
		return nil // unmounted since: nothing of the step is left on it
	}
	if err != nil {
		return fmt.Errorf("mount options of %s may still be changed: %v (check them with: findmnt %s)", m.Point, err, shell.Quote(m.Point))
	}
	if stateOf(now).equal(before) {
		return nil
	}
	restore, unknown := k.restore(before, stateOf(now), m.FSType)
	cmd := shown(mount(restore, m.Point))
	hand := "put them back by hand: " + cmd
	if len(unknown) > 0 {
		hand = fmt.Sprintf("%s has no known default: unmount and mount %s again", strings.Join(unknown, ","), shell.Quote(m.Point))
	}
	ctx, cancel := detached(ctx, time.Minute)
	defer cancel()
	_, runErr := run(ctx, env, mount(restore, m.Point))
	now, err = currentMount(m)
	if err == nil && stateOf(now).equal(before) {
		return nil
	}
	why := errors.Join(runErr, err)
	if why == nil {
		why = errors.New("the remount did not restore them")
	}
	return fmt.Errorf("mount options of %s still changed: %s, were %s: %v (%s)", m.Point, stateOf(now), before, why, hand)
}

// mount is mount -o opts point.
func mount(opts, point string) proc.Cmd {
	return proc.Cmd{Path: "mount", Args: []string{"-o", opts, point}}
}

var errMountGone = errors.New("no longer mounted")

// currentMount finds the mount m again in the mount table.
func currentMount(m sysinfo.Mount) (sysinfo.Mount, error) {
	ms, err := sysinfo.Mounts()
	if err != nil {
		return sysinfo.Mount{}, err
	}
	now, ok := sysinfo.MountOf(ms, m.Point)
	if !ok || now.ID != m.ID {
		return sysinfo.Mount{}, fmt.Errorf("%s: %w", m.Point, errMountGone)
	}
	return now, nil
}

// predict is the state the step's options should leave, for Plan.
func (k *mountOptions) predict(before mountState) mountState {
	set := func(opts string, o string, fam func(string) string) string {
		var out []string
		for _, x := range strings.Split(opts, ",") {
			if x != "" && fam(x) != fam(o) {
				out = append(out, x)
			}
		}
		return strings.Join(append(out, o), ",")
	}
	after := before
	for _, o := range k.opts {
		if _, ok := perMount[o]; ok {
			after.opts = set(after.opts, o, func(x string) string { return perMount[x] })
		} else if o != "bind" {
			after.super = set(after.super, o, fsFamily)
		}
	}
	return after
}

// restore is the option list of the remount that takes a mount from now
// back to before: "remount," then every per-mount option stated
// explicitly, then the filesystem options that differ. unknown lists
// options that cannot be put back.
func (k *mountOptions) restore(before, now mountState, fstype string) (string, []string) {
	out := []string{"remount"}
	bind := slices.Contains(k.opts, "bind")
	if bind {
		out = append(out, "bind")
	}
	out = append(out, restorePerMount(before.opts, now.opts)...)
	if bind {
		return strings.Join(out, ","), nil
	}
	was, is := families(before.super), families(now.super)
	var unknown []string
	for _, fam := range is.order {
		b, wasSet := was.opt[fam]
		switch a := is.opt[fam]; {
		case wasSet && a == b:
		case wasSet:
			out = append(out, b)
		default:
			if inv, ok := inverse(a, fstype); ok {
				out = append(out, inv)
			} else {
				unknown = append(unknown, a)
			}
		}
	}
	for _, fam := range was.order {
		if _, ok := is.opt[fam]; !ok {
			out = append(out, was.opt[fam])
		}
	}
	return strings.Join(out, ","), unknown
}

// restorePerMount states every per-mount option of before explicitly.
func restorePerMount(before, now string) []string {
	has := func(opts, o string) bool { return slices.Contains(strings.Split(opts, ","), o) }
	pick := func(o, off string) string {
		if has(before, o) {
			return o
		}
		return off
	}
	out := []string{pick("ro", "rw"), pick("nosuid", "suid"), pick("nodev", "dev"), pick("noexec", "exec")}
	switch {
	case has(before, "noatime"):
		out = append(out, "noatime")
	case has(before, "relatime"):
		// "atime" first: mount(8) keeps a noatime the step set, and the
		// kernel lets noatime win over relatime.
		out = append(out, "atime", "relatime")
	default:
		out = append(out, "strictatime")
	}
	out = append(out, pick("nodiratime", "diratime"))
	if has(before, "nosymfollow") || has(now, "nosymfollow") {
		out = append(out, pick("nosymfollow", "symfollow"))
	}
	return out
}

// optFamilies are a mount's filesystem options by family, in their order.
type optFamilies struct {
	opt   map[string]string
	order []string
}

func families(super string) optFamilies {
	f := optFamilies{opt: map[string]string{}}
	for _, o := range strings.Split(super, ",") {
		if o == "" || o == "rw" || o == "ro" {
			continue // the per-mount rw/ro says it
		}
		fam := fsFamily(o)
		if _, dup := f.opt[fam]; !dup {
			f.order = append(f.order, fam)
		}
		f.opt[fam] = o
	}
	return f
}

// fsFamily groups the spellings of one filesystem option: barrier,
// nobarrier and barrier=0 are one option; so are sync and async.
func fsFamily(o string) string {
	key, _, _ := strings.Cut(o, "=")
	switch key {
	case "async":
		return "sync"
	case "dioread_lock":
		return "dioread_nolock"
	}
	if base, ok := strings.CutPrefix(key, "no"); ok && base != "" {
		return base
	}
	return key
}

// inverse is the option that undoes o when before it nothing of its family
// was shown, that is, when the filesystem was at its default.
func inverse(o, fstype string) (string, bool) {
	key, _, hasValue := strings.Cut(o, "=")
	if hasValue {
		def, ok := fsDefaults[fstype][key]
		return def, ok
	}
	switch key {
	case "sync":
		return "async", true
	case "async":
		return "sync", true
	case "dioread_lock":
		return "dioread_nolock", true
	case "dioread_nolock":
		return "dioread_lock", true
	}
	if base, ok := strings.CutPrefix(key, "no"); ok && base != "" {
		return base, true
	}
	return "no" + key, true
}
