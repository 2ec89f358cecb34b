package host

// Facts describe a host and the filesystem of the workload's data directory.
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
	MountOptions string `json:"mount_options,omitempty"`
	Device       string `json:"device,omitempty"`
	Scheduler    string `json:"scheduler,omitempty"`
	Rotational   *bool  `json:"rotational,omitempty"`
	// Lab and EC2 facts come with the lab and the cloud.
}
