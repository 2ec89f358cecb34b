package host

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"

	"github.com/perfbisect/perfbisect/probe/sysinfo"
)

// localFacts describes this machine and the filesystem that holds dataDir,
// or will hold it: a data dir not made yet is described by its nearest
// existing parent, where the workload will create it. A fact that cannot
// be read is left empty, since a host described in part is still worth an
// investigation; only a missing dataDir is an error.
func localFacts(dataDir string) (Facts, error) {
	if dataDir == "" {
		return Facts{}, errors.New("no data dir to describe: name the directory the workload writes to")
	}
	f := Facts{
		Kernel:  sysinfo.Kernel(),
		CPU:     sysinfo.CPUModel(),
		CPUs:    runtime.NumCPU(),
		Root:    os.Geteuid() == 0,
		DataDir: dataDir,
	}
	f.Hostname, _ = os.Hostname()
	f.MemoryBytes, _ = sysinfo.MemTotal()
	if abs, err := filepath.Abs(dataDir); err == nil {
		f.DataDir = abs
	}
	dir, m, err := sysinfo.Locate(f.DataDir)
	if err != nil {
		return f, nil
	}
	f.MountPoint, f.Filesystem, f.Device = m.Point, m.FSType, m.Source
	f.MountOptions = mountOptions(m)
	disk, queue, err := sysinfo.BlockDevice(dir, m)
	if err != nil {
		return f, nil // tmpfs, NFS, overlay: the source is all there is
	}
	f.Device = disk
	f.Scheduler, _, _ = sysinfo.ReadScheduler(queue)
	if rot, err := sysinfo.Rotational(queue); err == nil {
		f.Rotational = &rot
	}
	return f, nil
}

// mountOptions shows the options of the mount and of its filesystem, which
// every mount of it shares: "rw,relatime (ext4: rw,discard)".
func mountOptions(m sysinfo.Mount) string {
	if m.SuperOpts == "" {
		return m.Opts
	}
	return m.Opts + " (" + m.FSType + ": " + m.SuperOpts + ")"
}
