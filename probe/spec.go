package probe

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Spec says what a workload does. Its fields are the flags of `perfbisect
// probe` and the `workload:` block of a playbook, and it is recorded whole in
// every summary and session log, so a number can always be traced to the
// exact measurement that produced it.
type Spec struct {
	Workload string   `json:"workload" yaml:"workload"`
	Dir      string   `json:"dir,omitempty" yaml:"dir,omitempty"`
	BS       Size     `json:"bs" yaml:"bs"`
	FileSize Size     `json:"file_size" yaml:"file_size"`
	Sync     SyncMode `json:"sync" yaml:"sync"`
	Prealloc Prealloc `json:"prealloc" yaml:"prealloc"`
	Threads  int      `json:"threads" yaml:"threads"`
	Duration Duration `json:"duration" yaml:"duration"`
	Keep     bool     `json:"keep,omitempty" yaml:"keep,omitempty"`

	// The fields below are for the other workloads (workloads.go): sysbench
	// and pgbench on a database server, fio, and any command.

	// Test is the sysbench test (oltp_insert, …) or pgbench's builtin
	// script (tpcb-like, simple-update, select-only).
	Test       string `json:"test,omitempty" yaml:"test,omitempty"`
	Tables     int    `json:"tables,omitempty" yaml:"tables,omitempty"`
	TableSize  int    `json:"table_size,omitempty" yaml:"table_size,omitempty"`
	Scale      int    `json:"scale,omitempty" yaml:"scale,omitempty"`
	Percentile int    `json:"percentile,omitempty" yaml:"percentile,omitempty"`
	// Server is the database: mariadb, mysql or postgresql.
	Server string `json:"server,omitempty" yaml:"server,omitempty"`
	// DB is managed (a throwaway server in Dir, started for each step) or
	// existing (the server at DBHost/DBPort/DBSocket).
	DB       string `json:"db,omitempty" yaml:"db,omitempty"`
	DBHost   string `json:"db_host,omitempty" yaml:"db_host,omitempty"`
	DBPort   int    `json:"db_port,omitempty" yaml:"db_port,omitempty"`
	DBSocket string `json:"db_socket,omitempty" yaml:"db_socket,omitempty"`
	DBUser   string `json:"db_user,omitempty" yaml:"db_user,omitempty"`
	DBName   string `json:"db_name,omitempty" yaml:"db_name,omitempty"`
	// DBPasswordEnv names the environment variable holding the password:
	// the password itself is never in a spec, a log or a report.
	DBPasswordEnv string `json:"db_password_env,omitempty" yaml:"db_password_env,omitempty"`
	// Args are fio's arguments (a job given on the command line), JobFile
	// a fio job file.
	Args    string `json:"args,omitempty" yaml:"args,omitempty"`
	JobFile string `json:"job_file,omitempty" yaml:"job_file,omitempty"`
	// Command is run by /bin/sh -c in Dir and prints a line per second;
	// Pattern is a regular expression whose named groups give the fields.
	Command string `json:"command,omitempty" yaml:"command,omitempty"`
	Pattern string `json:"pattern,omitempty" yaml:"pattern,omitempty"`
}

// MaxThreads bounds --threads: each writer holds a file and two histograms
// of about 250 KB, so 256 writers take some 130 MB.
const MaxThreads = 256

// DefaultSpec is the fsync probe as `perfbisect probe` runs it with no flags.
func DefaultSpec() Spec {
	return Spec{
		Workload: "fsync",
		BS:       4 * KiB,
		FileSize: 64 * MiB,
		Sync:     SyncFdatasync,
		Prealloc: PreallocFallocate,
		Threads:  1,
		Duration: Duration(10 * time.Second),
	}
}

// Validate reports the first setting that cannot run, naming what is allowed.
func (s Spec) Validate() error {
	if s.Workload != "fsync" {
		return s.validateTool()
	}
	switch {
	case s.BS <= 0:
		return fmt.Errorf("--bs %d: the block size must be at least 1 byte (like 2300, 4k or 16KiB)", s.BS)
	case s.FileSize < s.BS:
		return fmt.Errorf("--file-size %v is smaller than --bs %v: the file must hold at least one block", s.FileSize, s.BS)
	case s.Sync == SyncDirect && s.BS%512 != 0:
		return fmt.Errorf("--bs %v with --sync direct: O_DIRECT needs a multiple of 512 bytes (like 4k)", s.BS)
	case s.Threads < 1 || s.Threads > MaxThreads:
		return fmt.Errorf("--threads %d: want 1 to %d writers", s.Threads, MaxThreads)
	case time.Duration(s.Duration) < time.Second:
		return fmt.Errorf("--duration %v: want at least 1s (samples are one second each)", time.Duration(s.Duration))
	}
	if err := s.Sync.valid(); err != nil {
		return err
	}
	return s.Prealloc.valid()
}

// Describe says in one line what the workload does, for headers and logs.
func (s Spec) Describe() string {
	if s.Workload != "fsync" {
		return s.describeTool()
	}
	sync := "+ " + string(s.Sync)
	switch s.Sync {
	case SyncDsync:
		sync = "with O_DSYNC"
	case SyncDirect:
		sync = "with O_DIRECT + fdatasync"
	case SyncNone:
		sync = "without sync"
	}
	writers := "1 writer"
	if s.Threads != 1 {
		writers = fmt.Sprintf("%d writers", s.Threads)
	}
	return fmt.Sprintf("%v writes %s, %s on %v files, %v", s.BS, sync, writers, s.FileSize, time.Duration(s.Duration))
}

// SyncMode is how each write is made durable.
type SyncMode string

const (
	SyncFdatasync SyncMode = "fdatasync"
	SyncFsync     SyncMode = "fsync"
	SyncDsync     SyncMode = "dsync"
	SyncDirect    SyncMode = "direct"
	SyncNone      SyncMode = "none"
)

var syncModes = []SyncMode{SyncFdatasync, SyncFsync, SyncDsync, SyncDirect, SyncNone}

func (m SyncMode) valid() error        { return checkOneOf("--sync", m, syncModes) }
func (m *SyncMode) Set(v string) error { return setOneOf(m, v, syncModes) }
func (m SyncMode) String() string      { return string(m) }
func (m *SyncMode) Type() string       { return "mode" }

// Prealloc is how the data files get their blocks before the clock starts.
type Prealloc string

const (
	// PreallocFallocate reserves every block up front, as fio does by
	// default: a full disk is found before measuring, not during.
	PreallocFallocate Prealloc = "fallocate"
	// PreallocNone leaves the files sparse, so the first lap allocates
	// blocks as it writes, like a database growing its files.
	PreallocNone Prealloc = "none"
	// PreallocWrite fills the files with zeros (and syncs them) before
	// measuring, so every measured write overwrites written blocks, as in a
	// database's zero-filled or recycled log files. Without it, the first lap
	// on ext4 or XFS also pays to convert unwritten extents at each sync.
	PreallocWrite Prealloc = "write"
)

var preallocs = []Prealloc{PreallocFallocate, PreallocWrite, PreallocNone}

func (p Prealloc) valid() error        { return checkOneOf("--prealloc", p, preallocs) }
func (p *Prealloc) Set(v string) error { return setOneOf(p, v, preallocs) }
func (p Prealloc) String() string      { return string(p) }
func (p *Prealloc) Type() string       { return "mode" }

// Duration is a time.Duration written as "10s" in JSON and YAML.
type Duration time.Duration

func (d Duration) String() string { return time.Duration(d).String() }

// Std is d as a time.Duration.
func (d Duration) Std() time.Duration { return time.Duration(d) }

func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("duration %q: want a number with a unit, like 30s or 2m", string(b))
	}
	*d = Duration(v)
	return nil
}

// checkOneOf checks v, given as flag, against the values it may take.
func checkOneOf[T ~string](flag string, v T, vs []T) error {
	if slices.Contains(vs, v) {
		return nil
	}
	return fmt.Errorf("%s %q: want one of %s", flag, string(v), join(vs))
}

// setOneOf is the Set of a flag that takes one of vs. pflag's message
// names the flag and the value, so the error need only say what is allowed.
func setOneOf[T ~string](p *T, v string, vs []T) error {
	if !slices.Contains(vs, T(v)) {
		return fmt.Errorf("want one of %s", join(vs))
	}
	*p = T(v)
	return nil
}

func join[T ~string](vs []T) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = string(v)
	}
	return strings.Join(s, ", ")
}
