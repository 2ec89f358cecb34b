package host

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
}
