// Package sysinfo owns what the kernel says about this machine: its mount
// table (parsed here and nowhere else), the block devices under it and
// their I/O schedulers, its CPU and memory. It reads /proc and /sys, and
// writes them through one WriteSys: the sysctl knob's /proc/sys keys, and
// a request queue's scheduler and read-ahead, which the scheduler knob and
// the lab's image set through one writer that checks what the kernel kept.
// Knobs that change the machine and hosts that describe it both look here.
package sysinfo

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// MountInfoPath is where the kernel lists this process's mounts.
const MountInfoPath = "/proc/self/mountinfo"

// Mount is one line of /proc/self/mountinfo (see proc(5)).
type Mount struct {
	ID, Parent int
	Dev        string // major:minor of the filesystem
	Root       string // the directory of the filesystem mounted here (not "/" for a bind mount)
	Point      string // where it is mounted
	Opts       string // per-mount options: rw,nosuid,relatime
	FSType     string
	Source     string
	SuperOpts  string // superblock options, shared by every mount of the filesystem
}

// Mounts reads the mounts of this process.
func Mounts() ([]Mount, error) {
	f, err := os.Open(MountInfoPath)
	if err != nil {
		return nil, fmt.Errorf("read the mount table: %v", err)
	}
	defer f.Close()
	return ParseMountInfo(f)
}

// ParseMountInfo reads mountinfo lines:
//
//	36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
//
// A malformed line is an error: a mount table read in part could name the
// wrong mount for a path.
func ParseMountInfo(r io.Reader) ([]Mount, error) {
	var ms []Mount
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		m, err := parseMountLine(line)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %v", MountInfoPath, n, err)
		}
		ms = append(ms, m)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %v", MountInfoPath, err)
	}
	return ms, nil
}

func parseMountLine(line string) (Mount, error) {
	f := strings.Fields(line)
	sep := -1
	for i := 6; i < len(f); i++ {
		if f[i] == "-" {
			sep = i
			break
		}
	}
	if sep < 0 || len(f) < sep+3 {
		return Mount{}, fmt.Errorf("malformed mount %q", line)
	}
	id, err1 := strconv.Atoi(f[0])
	parent, err2 := strconv.Atoi(f[1])
	if err := errors.Join(err1, err2); err != nil {
		return Mount{}, fmt.Errorf("malformed mount %q: %v", line, err)
	}
	m := Mount{
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

// MountOf returns the mount that holds path (absolute, without symlinks):
// the deepest mount point above it, and of mounts stacked on the same point
// the last one, which is the one on top.
func MountOf(ms []Mount, path string) (Mount, bool) {
	var best Mount
	found := false
	for _, m := range ms {
		if !Within(path, m.Point) {
			continue
		}
		if !found || len(m.Point) >= len(best.Point) {
			best, found = m, true
		}
	}
	return best, found
}

// IsMountPoint says whether something is mounted on exactly dir (absolute,
// without symlinks), as the mount table shows it now.
func IsMountPoint(dir string) (bool, error) {
	ms, err := Mounts()
	if err != nil {
		return false, err
	}
	for _, m := range ms {
		if m.Point == dir {
			return true, nil
		}
	}
	return false, nil
}

// Within says whether path is dir or under it, comparing whole path
// elements: /var/lib/mysqlx is not within /var/lib/mysql.
func Within(path, dir string) bool {
	return path == dir || dir == "/" || strings.HasPrefix(path, dir+"/")
}

// Locate finds the mount that will hold path. A path not made yet is looked
// up by its nearest existing parent, where it would be created. dir is the
// directory looked at, absolute and with symlinks resolved.
func Locate(path string) (dir string, m Mount, err error) {
	dir, err = nearestExisting(path)
	if err != nil {
		return "", Mount{}, err
	}
	ms, err := Mounts()
	if err != nil {
		return dir, Mount{}, err
	}
	m, ok := MountOf(ms, dir)
	if !ok {
		return dir, Mount{}, fmt.Errorf("no mount holds %s in %s", dir, MountInfoPath)
	}
	return dir, m, nil
}

// nearestExisting is path, or its nearest parent that exists, made absolute
// and with symlinks resolved.
func nearestExisting(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	for p := abs; ; p = filepath.Dir(p) {
		_, err := os.Stat(p)
		if err == nil {
			return filepath.EvalSymlinks(p)
		}
		if !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		if p == "/" {
			return "", errors.New("no part of it exists")
		}
	}
}
