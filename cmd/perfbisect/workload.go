package main

import (
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/perfbisect/perfbisect/probe"
)

// workloadFlags are the flags that choose and shape a workload, shared by
// `probe` and `run`. They are read into a scratch spec and laid over the
// workload a playbook (or the probe's defaults) gives, one flag at a time,
// so that only what the operator typed changes it.
type workloadFlags struct {
	fs   *pflag.FlagSet
	v    probe.Spec
	copy map[string]func(dst *probe.Spec)
}

// addWorkloadFlags adds the flags to fs. fsyncFlags adds the fsync probe's
// own (--bs, --sync, …), which `run` takes from its playbook.
func addWorkloadFlags(fs *pflag.FlagSet, fsyncFlags bool) *workloadFlags {
	// The scratch spec's values are the defaults --help shows: the probe's
	// own for `probe`; none for `run`, whose defaults are its playbook's.
	w := &workloadFlags{fs: fs, copy: map[string]func(*probe.Spec){}}
	if fsyncFlags {
		w.v = probe.DefaultSpec()
	}
	v := &w.v
	// Each flag is bound to a field of v by a function that finds the same
	// field in any spec, so apply can copy it over.
	str := func(name string, field func(*probe.Spec) *string, usage string) {
		fs.StringVar(field(v), name, *field(v), usage)
		w.copy[name] = func(d *probe.Spec) { *field(d) = *field(v) }
	}
	num := func(name string, field func(*probe.Spec) *int, usage string) {
		fs.IntVar(field(v), name, *field(v), usage)
		w.copy[name] = func(d *probe.Spec) { *field(d) = *field(v) }
	}
	what := "what each step runs: " + strings.Join(probe.Workloads, ", ") + " (default: the playbook's)"
	if fsyncFlags {
		what = "what to run: " + strings.Join(probe.Workloads, ", ")
	}
	str("workload", func(s *probe.Spec) *string { return &s.Workload }, what)
	if fsyncFlags {
		fs.Var(&v.BS, "bs", "block size of each write: 2300, 4k, 16KiB, ...")
		fs.Var(&v.FileSize, "file-size", "size of each writer's file; writes wrap around at its end")
		fs.Var(&v.Sync, "sync", "how each write is made durable: fdatasync, fsync, dsync (O_DSYNC), direct (O_DIRECT + fdatasync), none; for a managed database: fdatasync (its syncs on) or none (off)")
		fs.Var(&v.Prealloc, "prealloc", "how files get their blocks before measuring: fallocate (as fio), write (zero-filled, every write an overwrite, like a database log), none (sparse)")
		fs.BoolVar(&v.Keep, "keep", false, "keep the data files (and a directory the probe created) afterwards")
		fs.DurationVar((*time.Duration)(&v.Duration), "duration", time.Duration(v.Duration), "how long to measure")
		w.copy["bs"] = func(d *probe.Spec) { d.BS = v.BS }
		w.copy["file-size"] = func(d *probe.Spec) { d.FileSize = v.FileSize }
		w.copy["sync"] = func(d *probe.Spec) { d.Sync = v.Sync }
		w.copy["prealloc"] = func(d *probe.Spec) { d.Prealloc = v.Prealloc }
		w.copy["keep"] = func(d *probe.Spec) { d.Keep = v.Keep }
		w.copy["duration"] = func(d *probe.Spec) { d.Duration = v.Duration }
	}
	num("threads", func(s *probe.Spec) *int { return &s.Threads }, "writers of the fsync probe; client threads of sysbench, clients of pgbench")
	str("test", func(s *probe.Spec) *string { return &s.Test }, "sysbench test (oltp_insert, oltp_write_only, oltp_read_write, …) or pgbench script (tpcb-like, simple-update, select-only)")
	num("tables", func(s *probe.Spec) *int { return &s.Tables }, "sysbench: number of tables")
	num("table-size", func(s *probe.Spec) *int { return &s.TableSize }, "sysbench: rows per table")
	num("percentile", func(s *probe.Spec) *int { return &s.Percentile }, "sysbench: the latency percentile it reports each second: 50, 95 or 99")
	num("scale", func(s *probe.Spec) *int { return &s.Scale }, "pgbench: scale factor (100,000 accounts each)")
	str("server", func(s *probe.Spec) *string { return &s.Server }, "database: mariadb or mysql (sysbench), postgresql (pgbench)")
	str("db", func(s *probe.Spec) *string { return &s.DB }, "managed (a throwaway server in the data dir, started for each step) or existing")
	str("db-host", func(s *probe.Spec) *string { return &s.DBHost }, "existing server: host")
	num("db-port", func(s *probe.Spec) *int { return &s.DBPort }, "existing server: port")
	str("db-socket", func(s *probe.Spec) *string { return &s.DBSocket }, "existing server: unix socket (MariaDB/MySQL: the socket file; PostgreSQL: its directory)")
	str("db-user", func(s *probe.Spec) *string { return &s.DBUser }, "existing server: user")
	str("db-name", func(s *probe.Spec) *string { return &s.DBName }, "existing server: database (sysbench creates its tables there)")
	str("db-password-env", func(s *probe.Spec) *string { return &s.DBPasswordEnv }, "existing server: the environment variable that holds the password (never logged)")
	str("args", func(s *probe.Spec) *string { return &s.Args }, "fio: the job as fio arguments, e.g. '--rw=randwrite --bs=4k --fdatasync=1 --size=256m'")
	str("job-file", func(s *probe.Spec) *string { return &s.JobFile }, "fio: a job file")
	str("command", func(s *probe.Spec) *string { return &s.Command }, "command: a program that prints a line per second, run by /bin/sh -c in the data dir")
	str("pattern", func(s *probe.Spec) *string { return &s.Pattern }, "command: a regular expression whose named groups give the fields: ops, lat_ms, p95_ms, p99_ms, mib, errors")
	return w
}

// apply lays the flags the operator gave over base. A --workload other
// than base's starts from that workload's defaults (keeping the data dir
// and duration), so `--workload sysbench` on the local-disk playbook runs
// sysbench oltp_insert on a managed MariaDB.
func (w *workloadFlags) apply(base probe.Spec) probe.Spec {
	if w.fs.Changed("workload") && w.v.Workload != base.Workload {
		dir, d := base.Dir, base.Duration
		base = probe.DefaultFor(w.v.Workload)
		base.Dir, base.Duration = dir, d
	}
	w.fs.Visit(func(f *pflag.Flag) {
		if cp, ok := w.copy[f.Name]; ok && f.Name != "workload" {
			cp(&base)
		}
	})
	return base
}
