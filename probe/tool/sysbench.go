package tool

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/perfbisect/perfbisect/internal/proc"
	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/parse"
)

// sysbenchJob runs a sysbench OLTP test against MariaDB or MySQL:
// prepare, run with a report every second, and, on an existing server,
// cleanup of the tables prepare created.
type sysbenchJob struct {
	database
	bin string
}

func newSysbench(spec probe.Spec, run programs) (*sysbenchJob, error) {
	if strings.HasSuffix(spec.Test, ".lua") {
		// sysbench runs in Spec.Dir: a script's path is perfbisect's.
		abs, err := filepath.Abs(spec.Test)
		if err != nil {
			return nil, fmt.Errorf("--test %s: %v", spec.Test, err)
		}
		spec.Test = abs
	}
	return &sysbenchJob{database: database{programs: run, sp: spec}}, nil
}

func (j *sysbenchJob) prepare(ctx context.Context) error {
	bin, err := exec.LookPath("sysbench")
	if err != nil {
		return missing("sysbench", err)
	}
	j.bin = bin
	if err := j.open(ctx); err != nil {
		return err
	}
	if j.server == nil {
		if err := j.checkTables(ctx); err != nil {
			return err
		}
		// None of its tables is there: what prepare makes is ours.
		j.created = true
	}
	inv, err := j.invocation(j.sp.Test, nil, "prepare")
	if err != nil {
		return err
	}
	exists := false
	err = j.runSync(ctx, "sysbench prepare", inv, func(l proc.Line) {
		exists = exists || strings.Contains(l.Text, "already exists")
	})
	if exists && err != nil {
		// Made since the check, not ours: cleanup must leave them.
		j.created = false
		return fmt.Errorf("%v; the tables sbtest1… are already in database %s: drop them if a previous run left them ('sysbench %s --tables=%d … cleanup'), or use another --db-name", err, j.dbName(), j.sp.Test, j.sp.Tables)
	}
	return err
}

// tablesScript is a sysbench script with one command, listing the tables
// whose name starts with sbtest.
const tablesScript = `sysbench.cmdline.commands = {
  tables = {function()
    local rs = sysbench.sql.driver():connect():query("SHOW TABLES LIKE 'sbtest%'")
    for i = 1, rs.nrows do print("table: " .. rs:fetch_row()[1]) end
  end}
}
`

// checkTables fails when a table the test would create is in the existing
// server's database: it may be someone else's, and prepare, which creates
// tables in parallel with --threads, would have created others before
// failing on it.
func (j *sysbenchJob) checkTables(ctx context.Context) error {
	script, err := pipeWith(tablesScript)
	if err != nil {
		return err
	}
	inv, err := j.invocation("/dev/fd/3", []*os.File{script}, "tables")
	if err != nil {
		script.Close()
		return err
	}
	var there []string
	err = j.runSync(ctx, "sysbench (check for its tables)", inv, func(l proc.Line) {
		name, ok := strings.CutPrefix(l.Text, "table: ")
		if k, err := strconv.Atoi(strings.TrimPrefix(name, "sbtest")); ok && err == nil && k >= 1 && k <= j.sp.Tables {
			there = append(there, name)
		}
	})
	switch {
	case err != nil:
		return err
	case len(there) > 0:
		return fmt.Errorf("%s already in database %s: drop them if a previous run left them ('sysbench %s --tables=%d … cleanup'), or use another --db-name", strings.Join(there, ", "), j.dbName(), j.sp.Test, j.sp.Tables)
	}
	return nil
}

func (j *sysbenchJob) dbName() string {
	if j.conn.Database == "" {
		return "sbtest"
	}
	return j.conn.Database
}

// invocation is sysbench with test (a name or a script's path), its
// connection and options, the extra arguments, and the command. files are
// passed to sysbench as fds 3, 4, …
func (j *sysbenchJob) invocation(test string, files []*os.File, command string, extra ...string) (invocation, error) {
	c := j.conn
	args := []string{test, "--db-driver=mysql"}
	if c.Socket != "" {
		args = append(args, "--mysql-socket="+c.Socket)
	} else {
		args = append(args, "--mysql-host="+c.Host)
		if c.Port != 0 {
			args = append(args, "--mysql-port="+strconv.Itoa(c.Port))
		}
	}
	if c.User != "" {
		args = append(args, "--mysql-user="+c.User)
	}
	if c.Database != "" {
		args = append(args, "--mysql-db="+c.Database)
	}
	args = append(args, "--tables="+strconv.Itoa(j.sp.Tables), "--table-size="+strconv.Itoa(j.sp.TableSize),
		"--threads="+strconv.Itoa(j.sp.Threads))
	inv := invocation{path: j.bin, dir: j.base.path, files: files, managedDB: j.server != nil}
	if c.Password != "" {
		// Never on the command line, which every user can read: sysbench
		// reads options from --config-file, here a pipe it inherits, so the
		// password touches no disk either. One it cannot quote goes in
		// MYSQL_PWD, which the MySQL and MariaDB client libraries read.
		if f, err := passwordPipe(c.Password); err != nil {
			return invocation{}, err
		} else if f != nil {
			args = append(args, fmt.Sprintf("--config-file=/dev/fd/%d", 3+len(inv.files)))
			inv.files = append(inv.files, f)
		} else {
			inv.env = []string{"MYSQL_PWD=" + c.Password}
		}
	}
	inv.args = append(append(args, extra...), command)
	return inv, nil
}

// passwordPipe returns the read end of a pipe holding a sysbench config
// file that sets the password, or nil when sysbench's config reader cannot
// hold it: it reads a value up to the same quote, in lines of at most 255
// bytes.
func passwordPipe(pw string) (*os.File, error) {
	q := `"`
	if strings.Contains(pw, q) {
		q = "'"
	}
	line := "mysql-password=" + q + pw + q + "\n"
	if strings.Contains(pw, q) || strings.ContainsAny(pw, "\n\x00") || len(line) > 255 {
		return nil, nil
	}
	f, err := pipeWith(line)
	if err != nil {
		return nil, fmt.Errorf("pass the password to sysbench: %v", err)
	}
	return f, nil
}

// pipeWith returns the read end of a pipe holding text, for a program to
// read as a file (/dev/fd/N): nothing is written to disk.
func pipeWith(text string) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	// A pipe holds 64 KiB: the write does not wait for a reader.
	_, err = w.WriteString(text)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

func (j *sysbenchJob) run() (run, error) {
	secs := int(math.Ceil(j.sp.Duration.Std().Seconds()))
	inv, err := j.invocation(j.sp.Test, nil, "run", "--time="+strconv.Itoa(secs), "--report-interval=1",
		"--percentile="+strconv.Itoa(j.sp.Percentile))
	if err != nil {
		return run{}, err
	}
	return run{name: "sysbench " + j.sp.Test, invocation: inv, fromStdout: true, ownLimit: true, quoteStdout: true}.reading(parse.FormatSysbench)
}

func (j *sysbenchJob) cleanup(ctx context.Context) error {
	return j.close(ctx, func() error {
		inv, err := j.invocation(j.sp.Test, nil, "cleanup")
		if err == nil {
			err = j.runSync(ctx, "sysbench cleanup", inv, nil)
		}
		if err != nil {
			return fmt.Errorf("drop the tables sysbench created in %s: %v", j.dbName(), err)
		}
		return nil
	})
}
