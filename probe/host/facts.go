package host

import "fmt"

// Facts describe a host and the filesystem of the workload's data directory
// (of its nearest existing parent when the workload has not made it yet).
// A fact the host could not read is empty.
type Facts struct {
	Hostname     string `json:"hostname"`
	Kernel       string `json:"kernel"`
	CPU          string `json:"cpu,omitempty"`
	CPUs         int    `json:"cpus"`
	MemoryBytes  int64  `json:"memory_bytes,omitempty"`
	Root         bool   `json:"root"`
	DataDir      string `json:"data_dir"`
	MountPoint   string `json:"mount_point,omitempty"`
	Filesystem   string `json:"filesystem,omitempty"`
	MountOptions string `json:"mount_options,omitempty"` // the mount's, then its filesystem's: "rw,relatime (ext4: rw,discard)"
	Device       string `json:"device,omitempty"`        // the disk, never a partition; off a block device, the mount source ("tmpfs")
	Scheduler    string `json:"scheduler,omitempty"`     // the disk's I/O scheduler in use
	Rotational   *bool  `json:"rotational,omitempty"`
	// Lab says the data directory is on the lab's emulated EBS volume, and
	// which: every screen and report that shows the host says so.
	Lab string `json:"lab,omitempty"`
	// Volume is the block volume under the data directory as its provider
	// (or the lab) says it is, when one says: a conclusion names the real
	// type, never the one a playbook expects.
	Volume *Volume `json:"volume,omitempty"`
}

// Volume is a cloud block volume (or the lab's emulation of one).
type Volume struct {
	Type    string `json:"type"` // gp2, gp3, io1, ...
	SizeGiB int    `json:"size_gib,omitempty"`
	// IOPS is what it sustains: provisioned, or gp2's baseline from its size.
	IOPS          int  `json:"iops,omitempty"`
	BurstIOPS     int  `json:"burst_iops,omitempty"` // gp2 while it has credits
	ThroughputMiB int  `json:"throughput_mib,omitempty"`
	Emulated      bool `json:"emulated,omitempty"`
	// Speed is the fraction of these limits an emulation runs at (the
	// lab's --scale); 0 or 1: as given.
	Speed float64 `json:"speed,omitempty"`
}

// String is the volume in a few words: "io1 100 GiB, 200 IOPS, emulated
// at 0.25x".
func (v Volume) String() string {
	s := v.Type
	if v.SizeGiB > 0 {
		s += fmt.Sprintf(" %d GiB", v.SizeGiB)
	}
	if v.IOPS > 0 {
		s += fmt.Sprintf(", %d IOPS", v.IOPS)
	}
	if v.BurstIOPS > v.IOPS {
		s += fmt.Sprintf(", burst %d", v.BurstIOPS)
	}
	if v.ThroughputMiB > 0 {
		s += fmt.Sprintf(", %d MiB/s", v.ThroughputMiB)
	}
	if v.Emulated {
		s += ", emulated"
	}
	if v.Speed > 0 && v.Speed != 1 {
		s += fmt.Sprintf(" at %gx", v.Speed)
	}
	return s
}
