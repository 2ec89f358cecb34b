package knob

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/perfbisect/perfbisect/internal/pathx"
	"github.com/perfbisect/perfbisect/internal/shell"
	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/journal"
	"github.com/perfbisect/perfbisect/probe/sysinfo"
)

var tmpfsSettings = map[string]string{
	"size": "the tmpfs size, like 512m or 2g (default: 2 × threads × file_size of the workload, at least 256MiB)",
}

func init() {
	register(Kind{
		Name:     "tmpfs",
		Summary:  "move the workload's data dir to a fresh tmpfs of bounded size, taking the disk out of the path",
		Settings: tmpfsSettings,
		New:      newTmpfs,
	})
}

const (
	minTmpfs = 256 * probe.MiB
	// shmDir is the tmpfs every Linux system has, used when not root.
	shmDir = "/dev/shm"
	// placeholder stands in Plan for the random part of the directory
	// Apply will create.
	placeholder = "XXXXXX"
)

// busyFor is how long a busy tmpfs is retried before giving up: the
// workload's process may still be closing its files.
var busyFor = 3 * time.Second

type tmpfs struct {
	size     probe.Size // 0: computed from the workload
	settings Settings
}

func newTmpfs(s Settings) (Knob, error) {
	k := &tmpfs{settings: s}
	if v, ok := s["size"]; ok {
		n, err := parseSize("tmpfs", "size", v)
		if err != nil {
			return nil, err
		}
		k.size = n
	}
	return k, nil
}

// tmpfsPlan is what Apply will do, worked out by Plan.
type tmpfsPlan struct {
	mount  bool       // mount a tmpfs (root), else make a directory in /dev/shm
	base   string     // where the fresh directory goes
	prefix string     // its name before the random part
	size   probe.Size // the tmpfs size (mount only)
	// mode of the directories it makes: 0700, or 0711 for a managed
	// PostgreSQL, whose server runs as the postgres user and must reach
	// its data dir through them.
	mode   os.FileMode
	change Change
}

func (k *tmpfs) Plan(ctx context.Context, env Env, w probe.Spec) (Change, error) {
	p, err := k.plan(env, w)
	return p.change, err
}

func (k *tmpfs) plan(env Env, w probe.Spec) (tmpfsPlan, error) {
	if w.IsDatabase() && !w.Managed() {
		return tmpfsPlan{}, &Unavailable{Knob: "tmpfs", Reason: fmt.Sprintf("the existing %s server's data is not perfbisect's to move: copy it to a tmpfs and point the server there by hand (a manual step), or use a managed server", w.Server)}
	}
	dir, m, err := dataMount(w)
	if err != nil {
		return tmpfsPlan{}, fmt.Errorf("tmpfs: %v", err)
	}
	need := workloadBytes(w)
	p := tmpfsPlan{mount: env.Root, size: k.sizeFor(w), mode: 0o700}
	if w.Managed() && w.Server == probe.ServerPostgreSQL {
		p.mode = 0o711
	}
	if p.mount {
		if need > p.size {
			return p, fmt.Errorf("tmpfs: size %v cannot hold the workload's %d × %v files (set size to at least %v)", p.size, w.Threads, w.FileSize, need)
		}
		if avail, err := sysinfo.MemAvailable(); err == nil && need > probe.Size(avail) {
			return p, &Unavailable{Knob: "tmpfs", Reason: fmt.Sprintf("the workload's files need %v of memory in tmpfs but only %v is available (lower file_size or threads)", need, probe.Size(avail))}
		}
		p.base, p.prefix = stateDir(env), "tmpfs-"
	} else {
		if err := shmUsable(need); err != nil {
			return p, err
		}
		p.base, p.prefix = shmDir, "perfbisect-tmpfs-"
	}
	p.change = p.describe(filepath.Join(p.base, p.prefix+placeholder))
	p.change.Settings = k.settings
	if p.mount {
		p.change.Settings = withDefaults(k.settings, Settings{"size": p.size.String()})
	}
	p.change.Before = describeMount(dir, m)
	return p, nil
}

// describe says what Apply does with the directory dir.
func (p tmpfsPlan) describe(dir string) Change {
	data := filepath.Join(dir, "data")
	mode := fmt.Sprintf("%04o", p.mode)
	if !p.mount {
		return Change{
			Knob: "tmpfs",
			Do: []string{
				shell.Join("mkdir", "-m", mode, dir) + " (not root: no tmpfs of its own can be mounted, so the shared " + shmDir + " tmpfs is used, bounded only by its own size)",
				shell.Join("mkdir", "-m", mode, data),
				"run the workload with --dir " + shell.Quote(data),
			},
			Undo: []string{shell.Join("rm", "-rf", dir)},
		}
	}
	do := []string{shell.Join("mkdir", "-p", "-m", mode, p.base)}
	if p.mode != 0o700 {
		do = append(do, shell.Join("chmod", "go+x", p.base)+" (the postgres user must reach the data dir; nothing in it becomes readable)")
	}
	return Change{
		Knob: "tmpfs",
		Do: append(do,
			shell.Join("mkdir", "-m", mode, dir),
			shell.Join("mount", "-t", "tmpfs", "-o", tmpfsOptions(p.size, p.mode)+",nosuid,nodev", "tmpfs", dir),
			shell.Join("mkdir", "-m", mode, data),
			"run the workload with --dir "+shell.Quote(data),
		),
		Undo: []string{shell.Join("umount", dir), shell.Join("rmdir", dir)},
	}
}

func (k *tmpfs) Apply(ctx context.Context, env Env, w probe.Spec) (probe.Spec, Change, Revert, error) {
	p, err := k.plan(env, w)
	if err != nil {
		return w, p.change, nil, err
	}
	if err := os.MkdirAll(p.base, p.mode); err != nil {
		return w, p.change, nil, fmt.Errorf("tmpfs: create %s: %v", p.base, pathx.Bare(err))
	}
	if p.mode != 0o700 {
		if err := traversable(p.base); err != nil {
			return w, p.change, nil, fmt.Errorf("tmpfs: %v", err)
		}
	}
	// The mount table names the real path: /var/run may be a link to /run.
	base, err := filepath.EvalSymlinks(p.base)
	if err == nil {
		base, err = filepath.Abs(base)
	}
	if err != nil {
		return w, p.change, nil, fmt.Errorf("tmpfs: %s: %v", p.base, pathx.Bare(err))
	}
	dir, err := os.MkdirTemp(base, p.prefix)
	if err != nil {
		return w, p.change, nil, fmt.Errorf("tmpfs: create a directory in %s: %v", p.base, pathx.Bare(err))
	}
	if err := os.Chmod(dir, p.mode); err != nil {
		os.Remove(dir)
		return w, p.change, nil, fmt.Errorf("tmpfs: %v", err)
	}
	change := p.describe(dir)
	change.Settings, change.Before = p.change.Settings, p.change.Before
	r := &tmpfsRevert{dir: dir, mounted: p.mount}
	revert := once(r.revert)
	fail := func(err error) (probe.Spec, Change, Revert, error) {
		return w, change, nil, errors.Join(err, revert(ctx))
	}

	undo, what := journal.Action{RemoveAll: dir}, "a directory in "+shmDir+": "+dir
	if p.mount {
		undo, what = journal.Action{Unmount: dir}, "a tmpfs mounted on "+dir
	}
	if err := will(env, what, undo); err != nil {
		return fail(fmt.Errorf("tmpfs: %v", err))
	}
	if p.mount {
		opts := tmpfsOptions(p.size, p.mode)
		if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, opts); err != nil {
			r.mounted = false
			hint := ""
			if errors.Is(err, syscall.EPERM) {
				hint = " (run as root, or use --dir " + shmDir + ")"
			}
			return fail(fmt.Errorf("tmpfs: mount tmpfs (%s) on %s: %v%s", opts, dir, err, hint))
		}
		ms, err := sysinfo.Mounts()
		if err != nil {
			return fail(fmt.Errorf("tmpfs: %v", err))
		}
		m, _ := sysinfo.MountOf(ms, dir)
		if m.Point != dir || m.FSType != "tmpfs" {
			return fail(fmt.Errorf("tmpfs: mounted a tmpfs on %s but %s shows %s there", dir, sysinfo.MountInfoPath, m.FSType))
		}
		change.After = fmt.Sprintf("tmpfs size=%v at %s (%s)", p.size, dir, m.SuperOpts)
	} else {
		change.After = fmt.Sprintf("a directory in the shared tmpfs %s: %s (no size bound of its own)", shmDir, dir)
	}
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		return fail(fmt.Errorf("tmpfs: create %s: %v", data, pathx.Bare(err)))
	}
	if err := os.Chmod(data, p.mode); err != nil {
		return fail(fmt.Errorf("tmpfs: %v", err))
	}
	w.Dir = data
	return w, change, revert, nil
}

// tmpfsRevert puts back one tmpfs knob, remembering what is left to do.
type tmpfsRevert struct {
	dir     string
	mounted bool
}

func (r *tmpfsRevert) revert(ctx context.Context) error {
	if r.mounted {
		if err := unmount(ctx, r.dir); err != nil {
			hint := ""
			if errors.Is(err, syscall.EBUSY) {
				hint = "fuser -vm " + shell.Quote(r.dir) + " shows who holds it; "
			}
			return fmt.Errorf("tmpfs still mounted on %s: %v (%sunmount it by hand: umount %s)", r.dir, err, hint, shell.Quote(r.dir))
		}
		r.mounted = false
		// The mount point is empty once the tmpfs is gone: rmdir, not rm -rf,
		// so a failed unmount can never delete data.
		if err := os.Remove(r.dir); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("tmpfs mount point %s left behind: %v (remove it by hand: rmdir %s)", r.dir, pathx.Bare(err), shell.Quote(r.dir))
		}
		return nil
	}
	if err := os.RemoveAll(r.dir); err != nil {
		return fmt.Errorf("tmpfs directory %s left behind: %v (remove it by hand: rm -rf %s)", r.dir, pathx.Bare(err), shell.Quote(r.dir))
	}
	return nil
}

// unmount unmounts dir, retrying for a while when it is busy.
func unmount(ctx context.Context, dir string) error {
	ctx, cancel := detached(ctx, busyFor)
	defer cancel()
	for {
		err := syscall.Unmount(dir, 0)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINVAL) && !isMountPoint(dir):
			return nil // already unmounted, by hand or by an earlier call
		case !errors.Is(err, syscall.EBUSY) || sleep(ctx, 100*time.Millisecond) != nil:
			return err
		}
	}
}

func isMountPoint(dir string) bool {
	mounted, err := sysinfo.IsMountPoint(dir)
	return mounted || err != nil // cannot tell: assume the worst
}

func (k *tmpfs) sizeFor(w probe.Spec) probe.Size {
	if k.size > 0 {
		return roundPage(k.size)
	}
	if w.Managed() {
		return dbTmpfs
	}
	return roundPage(max(minTmpfs, 2*workloadBytes(w)))
}

// dbTmpfs is the default size for a managed database's data dir (a fresh
// MariaDB with a small sysbench table takes some 200 MB, PostgreSQL at
// pgbench scale 10 some 250 MB): a bound, not an allocation.
const dbTmpfs = probe.GiB

// workloadBytes is what the workload writes to its data dir: one file per
// writer for the fsync probe; unknown (0) for other workloads.
func workloadBytes(w probe.Spec) probe.Size {
	if w.RunsTool() {
		return 0
	}
	return probe.Size(max(w.Threads, 1)) * w.FileSize
}

// roundPage rounds up to whole pages, as tmpfs does, so the size shown in
// the mount table is the size asked for.
func roundPage(n probe.Size) probe.Size {
	page := probe.Size(os.Getpagesize())
	return (n + page - 1) / page * page
}

// tmpfsOptions are the mount options for a tmpfs of the given size, in the
// units mount(8) takes.
func tmpfsOptions(size probe.Size, mode os.FileMode) string {
	s := strconv.FormatInt(int64(size), 10)
	for _, u := range []struct {
		unit string
		mult probe.Size
	}{{"g", probe.GiB}, {"m", probe.MiB}, {"k", probe.KiB}} {
		if size%u.mult == 0 {
			s = strconv.FormatInt(int64(size/u.mult), 10) + u.unit
			break
		}
	}
	return "size=" + s + fmt.Sprintf(",mode=%04o", mode)
}

// stateDir is where knobs create what they need.
func stateDir(env Env) string {
	if env.StateDir != "" {
		return env.StateDir
	}
	return DefaultStateDir(env.Root)
}

// DefaultStateDir is the state directory of a host whose knobs run as root
// or not: /run/perfbisect, or /dev/shm/perfbisect-UID.
func DefaultStateDir(root bool) string {
	if root {
		return "/run/perfbisect"
	}
	return filepath.Join(shmDir, fmt.Sprintf("perfbisect-%d", os.Getuid()))
}

// shmUsable checks that /dev/shm is a tmpfs with room for the workload.
func shmUsable(need probe.Size) error {
	ms, err := sysinfo.Mounts()
	if err != nil {
		return fmt.Errorf("tmpfs: %v", err)
	}
	if m, ok := sysinfo.MountOf(ms, shmDir); !ok || m.Point != shmDir || m.FSType != "tmpfs" {
		return &Unavailable{Knob: "tmpfs", Reason: "not root, so no tmpfs can be mounted, and " + shmDir + " is not a tmpfs (run as root)"}
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(shmDir, &st); err != nil {
		return fmt.Errorf("tmpfs: statfs %s: %v", shmDir, err)
	}
	if free := probe.Size(st.Bavail) * probe.Size(st.Bsize); need > free {
		return &Unavailable{Knob: "tmpfs", Reason: fmt.Sprintf("not root, and %s has %v free, less than the workload's %v (run as root, or lower file_size)", shmDir, free, need)}
	}
	return nil
}

// traversable gives others search (x) permission on dir, which perfbisect
// made for its own state, so a server running as another user (postgres)
// can reach a data dir below it. Listing it stays forbidden.
func traversable(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return pathx.Bare(err)
	}
	if fi.Mode().Perm()&0o011 == 0o011 {
		return nil
	}
	return os.Chmod(dir, fi.Mode().Perm()|0o011)
}
