package probe

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// The workloads perfbisect runs. fsync is built in; the others run a tool
// and read its per-second output (probe/tool).
const (
	WorkloadFsync    = "fsync"
	WorkloadSysbench = "sysbench"
	WorkloadPgbench  = "pgbench"
	WorkloadFio      = "fio"
	WorkloadCommand  = "command"
)

// Workloads lists the workload names, for flags and errors.
var Workloads = []string{WorkloadFsync, WorkloadSysbench, WorkloadPgbench, WorkloadFio, WorkloadCommand}

// Database server kinds and modes.
const (
	ServerMariaDB    = "mariadb"
	ServerMySQL      = "mysql"
	ServerPostgreSQL = "postgresql"
	DBManaged        = "managed"
	DBExisting       = "existing"
)

// SysbenchTests are the OLTP tests sysbench 1.x ships with.
var SysbenchTests = []string{"oltp_insert", "oltp_write_only", "oltp_read_write", "oltp_read_only",
	"oltp_update_index", "oltp_update_non_index", "oltp_delete", "oltp_point_select", "bulk_insert", "select_random_points", "select_random_ranges"}

// PgbenchScripts are pgbench's builtin scripts.
var PgbenchScripts = []string{"tpcb-like", "simple-update", "select-only"}

// CommandGroups are the named groups a command's pattern may use, each
// the Sample field of the same meaning (the fields' table says which).
var CommandGroups = commandGroups()

func commandGroups() map[string]Field {
	m := map[string]Field{}
	for _, f := range AllFields.List() {
		for _, g := range f.info().groups {
			m[g] = f
		}
	}
	return m
}

// commandGroupsText lists the groups for an error, a field's aliases
// together: "ops, mib, …, lat_ms or avg_ms, errors".
func commandGroupsText() string {
	var out []string
	for _, f := range AllFields.List() {
		out = append(out, strings.Join(f.info().groups, " or "))
	}
	return strings.Join(out, ", ")
}

// DefaultFor is the spec of workload as it runs with no other settings.
func DefaultFor(workload string) Spec {
	s := DefaultSpec()
	s.Workload = workload
	switch workload {
	case WorkloadSysbench:
		s.Test, s.Tables, s.TableSize, s.Percentile = "oltp_insert", 1, 10000, 95
		s.Server, s.DB = ServerMariaDB, DBManaged
	case WorkloadPgbench:
		s.Test, s.Scale = "tpcb-like", 10
		s.Server, s.DB = ServerPostgreSQL, DBManaged
	}
	return s
}

// RunsTool reports whether the workload runs another program (sysbench,
// pgbench, fio, a command) rather than the built-in fsync probe; a spec
// with no workload named is the probe's.
func (s Spec) RunsTool() bool { return s.Workload != "" && s.Workload != WorkloadFsync }

// IsDatabase reports whether the workload runs against a database server.
func (s Spec) IsDatabase() bool {
	return s.Workload == WorkloadSysbench || s.Workload == WorkloadPgbench
}

// Managed reports whether perfbisect starts the workload's database itself.
func (s Spec) Managed() bool { return s.IsDatabase() && s.DB != DBExisting }

// SyncOff reports whether the workload runs with its syncs off: the fsync
// probe's --sync none, or a managed database started without them.
func (s Spec) SyncOff() bool { return s.Sync == SyncNone }

func (s Spec) validateTool() error {
	if time.Duration(s.Duration) < time.Second {
		return fmt.Errorf("--duration %v: want at least 1s (samples are one second each)", time.Duration(s.Duration))
	}
	if s.Threads < 1 || s.Threads > 4096 {
		return fmt.Errorf("--threads %d: want 1 to 4096 clients", s.Threads)
	}
	switch s.Workload {
	case WorkloadSysbench:
		if !slices.Contains(SysbenchTests, s.Test) && !strings.HasSuffix(s.Test, ".lua") {
			return fmt.Errorf("--test %q: want a sysbench test (%s) or a .lua script", s.Test, strings.Join(SysbenchTests, ", "))
		}
		if s.Tables < 1 || s.TableSize < 1 {
			return fmt.Errorf("--tables %d --table-size %d: want at least 1 table of 1 row", s.Tables, s.TableSize)
		}
		if _, ok := PercentileField(s.Percentile); !ok {
			return fmt.Errorf("--percentile %d: want %s (the sample fields sysbench's per-second latency can fill)", s.Percentile, percentilesText())
		}
		if !slices.Contains([]string{ServerMariaDB, ServerMySQL}, s.Server) {
			return fmt.Errorf("--server %q: sysbench runs here against mariadb or mysql", s.Server)
		}
	case WorkloadPgbench:
		if !slices.Contains(PgbenchScripts, s.Test) {
			return fmt.Errorf("--test %q: want a pgbench builtin script (%s)", s.Test, strings.Join(PgbenchScripts, ", "))
		}
		if s.Scale < 1 {
			return fmt.Errorf("--scale %d: want at least 1 (100,000 accounts each)", s.Scale)
		}
		if s.Server != ServerPostgreSQL {
			return fmt.Errorf("--server %q: pgbench runs against postgresql", s.Server)
		}
	case WorkloadFio:
		if strings.TrimSpace(s.Args) == "" && s.JobFile == "" {
			return fmt.Errorf("--args: fio needs a job, as fio arguments (--args '--rw=randwrite --bs=4k --fdatasync=1 --size=64m') or a --job-file")
		}
	case WorkloadCommand:
		if strings.TrimSpace(s.Command) == "" {
			return fmt.Errorf("--command: the command workload needs a program that prints a line per second")
		}
		if _, err := CommandPattern(s.Pattern); err != nil {
			return err
		}
	default:
		return fmt.Errorf("workload %q: want one of %s", s.Workload, strings.Join(Workloads, ", "))
	}
	if s.IsDatabase() {
		if !slices.Contains([]string{DBManaged, DBExisting}, s.DB) {
			return fmt.Errorf("--db %q: want managed (perfbisect starts a throwaway server) or existing", s.DB)
		}
		if s.DB == DBExisting && s.DBHost == "" && s.DBSocket == "" {
			return fmt.Errorf("--db existing: say where the server is with --db-host (and --db-port) or --db-socket")
		}
		if s.Sync != SyncFdatasync && s.Sync != SyncNone && s.Sync != "" {
			return fmt.Errorf("--sync %q: a database workload runs with the server's syncs on (fdatasync) or off (none)", s.Sync)
		}
	}
	return nil
}

// CommandPattern compiles a command workload's pattern and checks that its
// named groups are fields it can fill, and that it names at least ops.
func CommandPattern(pattern string) (*regexp.Regexp, error) {
	if pattern == "" {
		return nil, fmt.Errorf("--pattern: the command workload needs a regular expression whose named groups give the fields, like 'tps=(?P<ops>[0-9.]+) lat=(?P<lat_ms>[0-9.]+)'")
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("--pattern %q: %v", pattern, err)
	}
	hasOps := false
	for _, n := range re.SubexpNames()[1:] {
		if n == "" {
			continue
		}
		if _, ok := CommandGroups[n]; !ok {
			return nil, fmt.Errorf("--pattern: unknown group %q (groups: %s)", n, commandGroupsText())
		}
		hasOps = hasOps || n == "ops"
	}
	if !hasOps {
		return nil, fmt.Errorf("--pattern %q: want a group (?P<ops>…) for the operations per second", pattern)
	}
	return re, nil
}

func (s Spec) describeTool() string {
	d := time.Duration(s.Duration)
	switch s.Workload {
	case WorkloadSysbench:
		return fmt.Sprintf("sysbench %s, %s, %d table(s) of %d rows, on %s, %v", s.Test, plural(s.Threads, "thread"), s.Tables, s.TableSize, s.DescribeDB(), d)
	case WorkloadPgbench:
		return fmt.Sprintf("pgbench %s, %s, scale %d, on %s, %v", s.Test, plural(s.Threads, "client"), s.Scale, s.DescribeDB(), d)
	case WorkloadFio:
		job := s.Args
		if s.JobFile != "" {
			job = "job file " + s.JobFile + " " + job
		}
		return fmt.Sprintf("fio %s, %v", strings.TrimSpace(job), d)
	case WorkloadCommand:
		return fmt.Sprintf("command %q, %v", s.Command, d)
	}
	return s.Workload
}

// DescribeDB says which database server the workload runs against.
func (s Spec) DescribeDB() string {
	name := map[string]string{ServerMariaDB: "MariaDB", ServerMySQL: "MySQL", ServerPostgreSQL: "PostgreSQL"}[s.Server]
	if name == "" {
		name = s.Server
	}
	if s.DB == DBExisting {
		where := s.DBSocket
		if where == "" {
			where = s.DBHost
			if s.DBPort != 0 {
				where = fmt.Sprintf("%s:%d", s.DBHost, s.DBPort)
			}
		}
		return fmt.Sprintf("the existing %s at %s", name, where)
	}
	if s.SyncOff() {
		return "a managed " + name + " with syncs off"
	}
	return "a managed " + name
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// Expected is the set of fields the workload's samples will have, before
// any has come (a screen sets up its charts with it); 0 when not known.
func (s Spec) Expected() Fields {
	switch s.Workload {
	case WorkloadFsync:
		return ProbeFields
	case WorkloadSysbench:
		pct, _ := PercentileField(s.Percentile)
		return FieldOps | pct | FieldErrors
	case WorkloadPgbench:
		return FieldOps | FieldAvg | FieldErrors
	case WorkloadFio:
		return FieldOps | FieldMiB | FieldP50 | FieldP95 | FieldP99 | FieldMax
	case WorkloadCommand:
		re, err := CommandPattern(s.Pattern)
		if err != nil {
			return 0
		}
		var f Fields
		for _, n := range re.SubexpNames() {
			f |= CommandGroups[n]
		}
		return f
	}
	return 0
}
