package probe

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func TestDefaultSpecIsValid(t *testing.T) {
	if err := DefaultSpec().Validate(); err != nil {
		t.Fatalf("DefaultSpec().Validate() = %v, want nil", err)
	}
}

func TestSpecValidateAccepts(t *testing.T) {
	uu := map[string]func(*Spec){
		"every sync mode fsync":   func(s *Spec) { s.Sync = SyncFsync },
		"dsync":                   func(s *Spec) { s.Sync = SyncDsync },
		"none":                    func(s *Spec) { s.Sync = SyncNone },
		"direct with 4k":          func(s *Spec) { s.Sync = SyncDirect },
		"direct with 512":         func(s *Spec) { s.Sync, s.BS = SyncDirect, 512 },
		"odd bs without direct":   func(s *Spec) { s.BS = 2300 },
		"one byte blocks":         func(s *Spec) { s.BS = 1 },
		"file of one block":       func(s *Spec) { s.FileSize = s.BS },
		"prealloc none":           func(s *Spec) { s.Prealloc = PreallocNone },
		"prealloc write":          func(s *Spec) { s.Prealloc = PreallocWrite },
		"max threads":             func(s *Spec) { s.Threads = MaxThreads },
		"shortest duration":       func(s *Spec) { s.Duration = Duration(time.Second) },
		"long duration":           func(s *Spec) { s.Duration = Duration(time.Hour) },
		"dir and keep are free":   func(s *Spec) { s.Dir, s.Keep = "/tmp/somewhere", true },
		"large blocks large file": func(s *Spec) { s.BS, s.FileSize = 64*MiB, 64*MiB },
	}
	for name, mod := range uu {
		t.Run(name, func(t *testing.T) {
			s := DefaultSpec()
			mod(&s)
			if err := s.Validate(); err != nil {
				t.Errorf("Validate(%+v) = %v, want nil", s, err)
			}
		})
	}
}

func TestSpecValidateRejects(t *testing.T) {
	uu := map[string]struct {
		mod  func(*Spec)
		want []string // fragments the message must hold: the flag, the value, what is allowed
	}{
		"workload": {
			func(s *Spec) { s.Workload = "fiox" },
			[]string{`workload "fiox"`, "fsync, sysbench, pgbench, fio, command"},
		},
		"sysbench test": {
			func(s *Spec) { *s = DefaultFor(WorkloadSysbench); s.Test = "oltp_bogus" },
			[]string{"--test", `"oltp_bogus"`, "oltp_insert", ".lua"},
		},
		"sysbench percentile": {
			func(s *Spec) { *s = DefaultFor(WorkloadSysbench); s.Percentile = 90 },
			[]string{"--percentile 90", "50, 95 or 99"},
		},
		"sysbench on postgresql": {
			func(s *Spec) { *s = DefaultFor(WorkloadSysbench); s.Server = ServerPostgreSQL },
			[]string{"--server", "mariadb or mysql"},
		},
		"pgbench scale": {
			func(s *Spec) { *s = DefaultFor(WorkloadPgbench); s.Scale = 0 },
			[]string{"--scale 0", "at least 1"},
		},
		"existing without address": {
			func(s *Spec) { *s = DefaultFor(WorkloadPgbench); s.DB = DBExisting },
			[]string{"--db existing", "--db-host", "--db-socket"},
		},
		"database sync": {
			func(s *Spec) { *s = DefaultFor(WorkloadSysbench); s.Sync = SyncDsync },
			[]string{"--sync", "fdatasync", "none"},
		},
		"fio without a job": {
			func(s *Spec) { *s = DefaultFor(WorkloadFio) },
			[]string{"--args", "--job-file"},
		},
		"command without ops": {
			func(s *Spec) { *s = DefaultFor(WorkloadCommand); s.Command = "x"; s.Pattern = `lat=(?P<lat_ms>\d+)` },
			[]string{"--pattern", "(?P<ops>"},
		},
		"command unknown group": {
			func(s *Spec) {
				*s = DefaultFor(WorkloadCommand)
				s.Command = "x"
				s.Pattern = `(?P<ops>\d+) (?P<tps>\d+)`
			},
			[]string{"unknown group", `"tps"`},
		},
		"empty workload": {
			func(s *Spec) { s.Workload = "" },
			[]string{`workload ""`, "fsync"},
		},
		"sync bogus": {
			func(s *Spec) { s.Sync = "bogus" },
			[]string{"--sync", `"bogus"`, "fdatasync, fsync, dsync, direct, none"},
		},
		"sync empty": {
			func(s *Spec) { s.Sync = "" },
			[]string{"--sync", "fdatasync, fsync, dsync, direct, none"},
		},
		"bs 0": {
			func(s *Spec) { s.BS = 0 },
			[]string{"--bs 0", "at least 1 byte"},
		},
		"bs negative": {
			func(s *Spec) { s.BS = -4096 },
			[]string{"--bs -4096", "at least 1 byte"},
		},
		"threads 0": {
			func(s *Spec) { s.Threads = 0 },
			[]string{"--threads 0", "1 to 256"},
		},
		"threads 257": {
			func(s *Spec) { s.Threads = 257 },
			[]string{"--threads 257", "1 to 256"},
		},
		"threads negative": {
			func(s *Spec) { s.Threads = -3 },
			[]string{"--threads -3", "1 to 256"},
		},
		"duration -1s": {
			func(s *Spec) { s.Duration = Duration(-time.Second) },
			[]string{"--duration -1s", "at least 1s"},
		},
		"duration 500ms": {
			func(s *Spec) { s.Duration = Duration(500 * time.Millisecond) },
			[]string{"--duration 500ms", "at least 1s"},
		},
		"duration 0": {
			func(s *Spec) { s.Duration = 0 },
			[]string{"--duration 0s", "at least 1s"},
		},
		"file smaller than block": {
			func(s *Spec) { s.BS, s.FileSize = 64*KiB, 16*KiB },
			[]string{"--file-size 16KiB", "--bs 64KiB", "at least one block"},
		},
		"file one byte short of a block": {
			func(s *Spec) { s.BS, s.FileSize = 4*KiB, 4*KiB-1 },
			[]string{"--file-size 4095B", "--bs 4KiB", "at least one block"},
		},
		"file size zero": {
			func(s *Spec) { s.FileSize = 0 },
			[]string{"--file-size 0B", "--bs 4KiB"},
		},
		"direct with 2300": {
			func(s *Spec) { s.Sync, s.BS = SyncDirect, 2300 },
			[]string{"--bs 2300B", "--sync direct", "multiple of 512"},
		},
		"direct with 256": {
			func(s *Spec) { s.Sync, s.BS = SyncDirect, 256 },
			[]string{"--bs 256B", "--sync direct", "multiple of 512"},
		},
		"prealloc bogus": {
			func(s *Spec) { s.Prealloc = "bogus" },
			[]string{"--prealloc", `"bogus"`, "fallocate, write, none"},
		},
		"prealloc empty": {
			func(s *Spec) { s.Prealloc = "" },
			[]string{"--prealloc", "fallocate, write, none"},
		},
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) {
			s := DefaultSpec()
			u.mod(&s)
			err := s.Validate()
			if err == nil {
				t.Fatalf("Validate(%+v) = nil, want an error", s)
			}
			for _, w := range u.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Validate error %q, want it to contain %q", err, w)
				}
			}
		})
	}
}

// Set is called by pflag, whose message names the flag and the value
// (`invalid argument "bogus" for "--sync" flag: ...`), so Set need only say
// what is allowed.
func TestModeFlagSet(t *testing.T) {
	sync, prealloc := SyncFsync, PreallocNone
	uu := map[string]struct {
		flag      pflag.Value
		good, bad []string
		allowed   string // what the error names
	}{
		"sync": {&sync, []string{"fdatasync", "fsync", "dsync", "direct", "none"},
			[]string{"", "bogus", "sync", "fdatasync ", "o_direct"}, "fdatasync, fsync, dsync, direct, none"},
		"prealloc": {&prealloc, []string{"fallocate", "write", "none"},
			[]string{"", "bogus", "posix_fallocate", "zero", "Write"}, "fallocate, write, none"},
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) {
			for _, v := range u.good {
				if err := u.flag.Set(v); err != nil {
					t.Errorf("Set(%q): %v", v, err)
				}
				if u.flag.String() != v {
					t.Errorf("after Set(%q), String() = %q", v, u.flag.String())
				}
			}
			for _, v := range u.bad {
				before := u.flag.String()
				err := u.flag.Set(v)
				if err == nil {
					t.Errorf("Set(%q) = nil, want an error", v)
					continue
				}
				if !strings.Contains(err.Error(), u.allowed) {
					t.Errorf("Set(%q) error %q does not name the allowed values", v, err)
				}
				if u.flag.String() != before {
					t.Errorf("a failed Set(%q) changed the value from %q to %q", v, before, u.flag.String())
				}
			}
			if u.flag.Type() != "mode" {
				t.Errorf("Type() = %q, want mode", u.flag.Type())
			}
		})
	}
}

func TestSpecJSONRoundTrip(t *testing.T) {
	uu := map[string]Spec{
		"default": DefaultSpec(),
		"everything set": {
			Workload: "fsync",
			Dir:      "/mnt/data",
			BS:       2300,
			FileSize: 3 * GiB,
			Sync:     SyncNone,
			Prealloc: PreallocWrite,
			Threads:  16,
			Duration: Duration(90 * time.Second),
			Keep:     true,
		},
		"sub-second duration": {Workload: "fsync", BS: 1, FileSize: 1, Sync: SyncDirect, Prealloc: PreallocFallocate, Threads: 1, Duration: Duration(1500 * time.Millisecond)},
	}
	for name, s := range uu {
		t.Run(name, func(t *testing.T) {
			b, err := json.Marshal(s)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			var back Spec
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatalf("Unmarshal(%s): %v", b, err)
			}
			if !reflect.DeepEqual(back, s) {
				t.Errorf("round trip through %s:\n got %+v\nwant %+v", b, back, s)
			}
		})
	}
}

func TestSpecJSONForm(t *testing.T) {
	b, err := json.Marshal(DefaultSpec())
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"workload":"fsync","bs":"4KiB","file_size":"64MiB","sync":"fdatasync","prealloc":"fallocate","threads":1,"duration":"10s"}`
	if string(b) != want {
		t.Errorf("json.Marshal(DefaultSpec()) =\n%s\nwant\n%s", b, want)
	}
}

func TestSpecJSONReadsOperatorForms(t *testing.T) {
	in := `{"workload":"fsync","bs":"16k","file_size":"1g","sync":"dsync","prealloc":"none","threads":4,"duration":"2m"}`
	var s Spec
	if err := json.Unmarshal([]byte(in), &s); err != nil {
		t.Fatalf("Unmarshal(%s): %v", in, err)
	}
	want := Spec{Workload: "fsync", BS: 16 * KiB, FileSize: GiB, Sync: SyncDsync, Prealloc: PreallocNone, Threads: 4, Duration: Duration(2 * time.Minute)}
	if s != want {
		t.Errorf("Unmarshal(%s) = %+v, want %+v", in, s, want)
	}
}

func TestSpecJSONRejectsBadFields(t *testing.T) {
	uu := map[string]struct {
		in   string
		want string
	}{
		"bad size":     {`{"bs":"4q"}`, `unknown unit "q"`},
		"bad duration": {`{"duration":"ten seconds"}`, "like 30s or 2m"},
		"bare number":  {`{"duration":"10"}`, "like 30s or 2m"},
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) {
			var s Spec
			err := json.Unmarshal([]byte(u.in), &s)
			if err == nil {
				t.Fatalf("Unmarshal(%s) = nil, want an error", u.in)
			}
			if !strings.Contains(err.Error(), u.want) {
				t.Errorf("Unmarshal(%s) error %q, want it to contain %q", u.in, err, u.want)
			}
		})
	}
}

func TestSpecDescribe(t *testing.T) {
	uu := map[string]struct {
		mod  func(*Spec)
		want string
	}{
		"default":   {func(*Spec) {}, "4KiB writes + fdatasync, 1 writer on 64MiB files, 10s"},
		"fsync":     {func(s *Spec) { s.Sync = SyncFsync }, "4KiB writes + fsync, 1 writer on 64MiB files, 10s"},
		"dsync":     {func(s *Spec) { s.Sync = SyncDsync }, "4KiB writes with O_DSYNC, 1 writer on 64MiB files, 10s"},
		"direct":    {func(s *Spec) { s.Sync = SyncDirect }, "4KiB writes with O_DIRECT + fdatasync, 1 writer on 64MiB files, 10s"},
		"none":      {func(s *Spec) { s.Sync = SyncNone }, "4KiB writes without sync, 1 writer on 64MiB files, 10s"},
		"writers":   {func(s *Spec) { s.Threads = 8 }, "4KiB writes + fdatasync, 8 writers on 64MiB files, 10s"},
		"odd sizes": {func(s *Spec) { s.BS, s.Duration = 2300, Duration(90*time.Second) }, "2300B writes + fdatasync, 1 writer on 64MiB files, 1m30s"},
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) {
			s := DefaultSpec()
			u.mod(&s)
			if got := s.Describe(); got != u.want {
				t.Errorf("Describe() = %q, want %q", got, u.want)
			}
		})
	}
}

func TestSpecExpected(t *testing.T) {
	sb := DefaultFor(WorkloadSysbench)
	sb.Percentile = 99
	cmd := DefaultFor(WorkloadCommand)
	cmd.Pattern = `tps=(?P<ops>\d+) lat=(?P<lat_ms>[0-9.]+)`
	uu := []struct {
		s    Spec
		want Fields
	}{
		{DefaultSpec(), ProbeFields},
		{sb, FieldOps | FieldP99 | FieldErrors},
		{DefaultFor(WorkloadPgbench), FieldOps | FieldAvg | FieldErrors},
		{cmd, FieldOps | FieldAvg},
		{Spec{Workload: "nope"}, 0},
	}
	for _, u := range uu {
		if got := u.s.Expected(); got != u.want {
			t.Errorf("%s: Expected() = %v, want %v", u.s.Workload, got, u.want)
		}
	}
}

func TestLatencies(t *testing.T) {
	uu := []struct {
		have Fields
		want []Field
	}{
		{ProbeFields, []Field{FieldP50, FieldP99, FieldMax}},
		{FieldOps | FieldP95 | FieldErrors, []Field{FieldP95}},
		{FieldOps | FieldAvg, []Field{FieldAvg}},
		{FieldOps | FieldP50 | FieldP95 | FieldP99 | FieldAvg | FieldMax, []Field{FieldP50, FieldP99, FieldAvg, FieldMax}},
		{FieldOps, nil},
	}
	for _, u := range uu {
		if got := Latencies(u.have); !slices.Equal(got, u.want) {
			t.Errorf("Latencies(%v) = %v, want %v", u.have, got, u.want)
		}
	}
}
