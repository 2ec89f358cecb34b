package sysinfo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfbisect/perfbisect/internal/testutil"
)

func readTestMounts(t *testing.T) []Mount {
	t.Helper()
	ms, err := ParseMountInfo(strings.NewReader(testdata(t, "mountinfo")))
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

func TestParseMountInfo(t *testing.T) {
	ms := readTestMounts(t)
	if len(ms) != 9 {
		t.Fatalf("got %d mounts, want 9", len(ms))
	}
	m := ms[5]
	want := Mount{ID: 40, Parent: 27, Dev: "259:2", Root: "/", Point: "/var/lib/mysql", Opts: "rw,noatime",
		FSType: "xfs", Source: "/dev/nvme1n1p1", SuperOpts: "rw,attr2,inode64,logbufs=8,noquota"}
	if m != want {
		t.Errorf("mount with optional fields:\n got %+v\nwant %+v", m, want)
	}
	if ms[6].Point != "/mnt/my data" {
		t.Errorf("escaped point = %q, want %q", ms[6].Point, "/mnt/my data")
	}
	if ms[7].Root != "/mysql/binlog" {
		t.Errorf("bind mount root = %q", ms[7].Root)
	}
}

func TestParseMountInfoMalformed(t *testing.T) {
	_, err := ParseMountInfo(strings.NewReader("22 27 0:21 / /proc rw,relatime proc proc rw\n"))
	if err == nil || !strings.Contains(err.Error(), "line 1") || !strings.Contains(err.Error(), "malformed mount") {
		t.Errorf("err = %v, want a malformed mount on line 1", err)
	}
}

func TestMountOf(t *testing.T) {
	ms := readTestMounts(t)
	uu := map[string]struct{ path, point, fstype string }{
		"root":           {"/home/sre/data", "/", "ext4"},
		"exact":          {"/var/lib/mysql", "/var/lib/mysql", "xfs"},
		"below":          {"/var/lib/mysql/ibdata", "/var/lib/mysql", "xfs"},
		"sibling prefix": {"/var/lib/mysqlxy", "/", "ext4"},
		"stacked on top": {"/dev/shm/x", "/dev/shm", "tmpfs"},
		"space":          {"/mnt/my data/x", "/mnt/my data", "ext4"},
	}
	for name, u := range uu {
		m, ok := MountOf(ms, u.path)
		if !ok || m.Point != u.point || m.FSType != u.fstype {
			t.Errorf("%s: MountOf(%s) = %s %s, want %s %s", name, u.path, m.Point, m.FSType, u.point, u.fstype)
		}
	}
	if m, _ := MountOf(ms, "/dev/shm"); m.ID != 30 {
		t.Errorf("of two mounts stacked on /dev/shm, got %d, want the later one, 30", m.ID)
	}
	if m, ok := MountOf(nil, "/x"); ok {
		t.Errorf("MountOf(no mounts) = %+v, want none", m)
	}
}

func TestUnescapeMount(t *testing.T) {
	uu := map[string]string{
		`/mnt/a\040b`:   "/mnt/a b",
		`/mnt/tab\011x`: "/mnt/tab\tx",
		`/back\134s`:    `/back\s`,
		`/trailing\04`:  `/trailing\04`,
		`/plain`:        "/plain",
	}
	for in, want := range uu {
		if got := unescapeMount(in); got != want {
			t.Errorf("unescapeMount(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLocate(t *testing.T) {
	tmp := t.TempDir()
	link := filepath.Join(tmp, "link")
	if err := os.Symlink(tmp, link); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(tmp)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := Mounts()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := MountOf(ms, real)
	uu := map[string]string{
		"exists":       tmp,
		"not yet made": filepath.Join(tmp, "a", "b"),
		"via symlink":  filepath.Join(link, "a"),
	}
	for name, path := range uu {
		dir, m, err := Locate(path)
		if err != nil || dir != real || m != want {
			t.Errorf("%s: Locate(%s) = %s, %s, %v; want %s, %s", name, path, dir, m.Point, err, real, want.Point)
		}
	}
}

// TestIsMountPoint: a tmpfs's mount point is one, a directory in it or a
// path that only begins like it is not.
func TestIsMountPoint(t *testing.T) {
	tmp := testutil.Tmpfs(t, "4m")
	sub := filepath.Join(tmp, "sub")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, dir := range []string{"/", tmp, sub, tmp + "x"} {
		m, err := IsMountPoint(dir)
		if err != nil {
			t.Fatal(err)
		}
		got[dir] = m
	}
	if !got["/"] || !got[tmp] || got[sub] || got[tmp+"x"] {
		t.Errorf("IsMountPoint: %v; want only / and %s", got, tmp)
	}
}

func FuzzParseMountInfo(f *testing.F) {
	f.Add(testdata(f, "mountinfo"))
	f.Add(`1 2 3:4 / /a\040b rw - x y`)
	f.Fuzz(func(t *testing.T, s string) {
		ms, err := ParseMountInfo(strings.NewReader(s))
		if err != nil {
			return
		}
		for _, m := range ms {
			if m.FSType == "" {
				t.Errorf("parsed a mount without a filesystem type from %q", s)
			}
		}
		MountOf(ms, "/a b/c")
	})
}
