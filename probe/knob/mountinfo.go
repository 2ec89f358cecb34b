package knob

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/perfbisect/perfbisect/probe"
)

// mountInfoPath is where the kernel lists this process's mounts.
const mountInfoPath = "/proc/self/mountinfo"

// mountEntry is one line of /proc/self/mountinfo (see proc(5)).
type mountEntry struct {
	ID, Parent int
	Dev        string // major:minor of the filesystem
	Root       string // the directory of the filesystem mounted here (not "/" for a bind mount)
	Point      string // where it is mounted
	Opts       string // per-mount options: rw,nosuid,relatime
	FSType     string
	Source     string
	SuperOpts  string // superblock options, shared by every mount of the filesystem
}

// readMounts reads the mounts of this process.
func readMounts() ([]mountEntry, error) {
	f, err := os.Open(mountInfoPath)
	if err != nil {
		return nil, fmt.Errorf("read the mount table: %v", err)
	}
	defer f.Close()
	return parseMountInfo(f)
}

// parseMountInfo reads mountinfo lines:
//
//	36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
func parseMountInfo(r io.Reader) ([]mountEntry, error) {
	var ms []mountEntry
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		m, err := parseMountLine(line)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %v", mountInfoPath, n, err)
		}
		ms = append(ms, m)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %v", mountInfoPath, err)
	}
	return ms, nil
}

func parseMountLine(line string) (mountEntry, error) {
	f := strings.Fields(line)
	sep := -1
	for i := 6; i < len(f); i++ {
		if f[i] == "-" {
			sep = i
			break
		}
	}
	if sep < 0 || len(f) < sep+3 {
		return mountEntry{}, fmt.Errorf("malformed mount %q", line)
	}
	id, err1 := strconv.Atoi(f[0])
	parent, err2 := strconv.Atoi(f[1])
	if err := errors.Join(err1, err2); err != nil {
		return mountEntry{}, fmt.Errorf("malformed mount %q: %v", line, err)
	}
	m := mountEntry{
		ID: id, Parent: parent, Dev: f[2],
		Root: unescapeMount(f[3]), Point: unescapeMount(f[4]), Opts: f[5],
		FSType: f[sep+1], Source: unescapeMount(f[sep+2]),
	}
	if len(f) > sep+3 {
		m.SuperOpts = f[sep+3]
	}
	return m, nil
}

// unescapeMount undoes the octal escapes the kernel writes for space, tab,
// newline and backslash in paths (\040, \011, \012, \134).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// mountOf returns the mount that holds path (absolute, without symlinks):
// the deepest mount point above it, and of mounts stacked on the same point
// the last one, which is the one on top.
func mountOf(ms []mountEntry, path string) (mountEntry, bool) {
	var best mountEntry
	found := false
	for _, m := range ms {
		if !within(path, m.Point) {
			continue
		}
		if !found || len(m.Point) >= len(best.Point) {
			best, found = m, true
		}
	}
	return best, found
}

// within says whether path is dir or under it.
func within(path, dir string) bool {
	return path == dir || dir == "/" || strings.HasPrefix(path, dir+"/")
}

// dataDir is the workload's data directory as an absolute path: the current
// directory when the spec names none, as the fsync workload does.
func dataDir(w probe.Spec) (string, error) {
	dir := w.Dir
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("data dir %s: %v", dir, err)
	}
	return abs, nil
}

// existingDir is the data dir, or its nearest parent that exists when the
// workload has not created it yet, with symlinks resolved: the place whose
// filesystem the workload will write to.
func existingDir(w probe.Spec) (string, error) {
	dir, err := dataDir(w)
	if err != nil {
		return "", err
	}
	for p := dir; ; p = filepath.Dir(p) {
		if _, err := os.Stat(p); err == nil {
			real, err := filepath.EvalSymlinks(p)
			if err != nil {
				return "", fmt.Errorf("data dir %s: %v", dir, err)
			}
			return real, nil
		} else if !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("data dir %s: %v", dir, err)
		}
		if p == "/" {
			return "", fmt.Errorf("data dir %s: no part of it exists", dir)
		}
	}
}

// dataMount returns the mount the workload's data dir lives on.
func dataMount(w probe.Spec) (dir string, m mountEntry, err error) {
	dir, err = existingDir(w)
	if err != nil {
		return "", mountEntry{}, err
	}
	ms, err := readMounts()
	if err != nil {
		return "", mountEntry{}, err
	}
	m, ok := mountOf(ms, dir)
	if !ok {
		return "", mountEntry{}, fmt.Errorf("no mount holds %s in %s", dir, mountInfoPath)
	}
	return dir, m, nil
}

// describeMount says in one line what a directory is on, for Before.
func describeMount(dir string, m mountEntry) string {
	return fmt.Sprintf("%s (%s is on %s mounted at %s, %s)", m.FSType, dir, m.Source, m.Point, m.SuperOpts)
}
