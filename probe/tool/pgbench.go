package tool

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/perfbisect/perfbisect/internal/proc"
	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/parse"
)

// pgbenchJob runs pgbench against PostgreSQL: initialize its tables, then
// run a builtin script with a progress report every second.
//
// On an existing server, tables that are there may be someone else's: the
// initialization does not drop tables first (pgbench -i does by default),
// and does not start when a pgbench_* table exists (psql checks first:
// pgbench creates its tables one by one, and would have created some
// before failing on one that exists). Tables this run created are dropped
// after it (pgbench -i -I d).
type pgbenchJob struct {
	database
	bin string
}

// pgbenchTables are the tables pgbench -i creates.
var pgbenchTables = []string{"pgbench_accounts", "pgbench_branches", "pgbench_history", "pgbench_tellers"}

func newPgbench(spec probe.Spec, run programs) (*pgbenchJob, error) {
	return &pgbenchJob{database: database{programs: run, sp: spec}}, nil
}

func (j *pgbenchJob) prepare(ctx context.Context) error {
	bin, err := findPgbench()
	if err != nil {
		return err
	}
	j.bin = bin
	if err := j.open(ctx); err != nil {
		return err
	}
	// d: drop old tables, t: create, g: generate rows, v: vacuum, p: primary keys.
	steps := "dtgvp"
	if j.server == nil {
		steps = "tgvp"
		there, err := j.tablesThere(ctx)
		if err != nil {
			return err
		}
		if len(there) > 0 {
			return fmt.Errorf("%s already in database %s: drop them if a previous run left them ('pgbench -i -I d %s'), or use another --db-name", strings.Join(there, ", "), j.conn.Database, j.conn.Database)
		}
		// None is there: what the initialization makes is ours.
		j.created = true
	}
	exists := false
	err = j.runSync(ctx, "pgbench -i", j.invocation(j.bin, "-i", "-I", steps, "-s", strconv.Itoa(j.sp.Scale), "-q"), func(l proc.Line) {
		exists = exists || strings.Contains(l.Text, "already exists")
	})
	if exists && err != nil {
		j.created = false // not ours (made since the check): leave them
		return fmt.Errorf("%v; the pgbench_* tables are already in database %s: drop them if a previous run left them ('pgbench -i -I d %s'), or use another --db-name", err, j.conn.Database, j.conn.Database)
	}
	return err
}

// tablesThere lists the pgbench tables in the database, with psql, which
// comes with pgbench (in the same directory, or on PATH).
func (j *pgbenchJob) tablesThere(ctx context.Context) ([]string, error) {
	psql := filepath.Join(filepath.Dir(j.bin), "psql")
	if _, err := os.Stat(psql); err != nil {
		if psql, err = exec.LookPath("psql"); err != nil {
			return nil, fmt.Errorf("psql, to check for pgbench's tables on the existing server, is not installed (%v): %s", unwrapExec(err), packages["pgbench"])
		}
	}
	query := fmt.Sprintf("SELECT t FROM unnest(ARRAY['%s']) AS t WHERE to_regclass(t) IS NOT NULL", strings.Join(pgbenchTables, "','"))
	var there []string
	err := j.runSync(ctx, "psql", j.invocation(psql, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", query), func(l proc.Line) {
		if t := strings.TrimSpace(l.Text); !l.Stderr && slices.Contains(pgbenchTables, t) {
			there = append(there, t)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("check for pgbench's tables on the existing server: %v", err)
	}
	return there, nil
}

// invocation is bin (pgbench or psql) with args, the connection and the
// database. Their password is in PGPASSWORD, never on the command line.
func (j *pgbenchJob) invocation(bin string, args ...string) invocation {
	c := j.conn
	if c.Socket != "" {
		args = append(args, "-h", c.Socket) // PostgreSQL: the socket's directory
	} else if c.Host != "" {
		args = append(args, "-h", c.Host)
	}
	if c.Port != 0 {
		args = append(args, "-p", strconv.Itoa(c.Port))
	}
	if c.User != "" {
		args = append(args, "-U", c.User)
	}
	if c.Database != "" {
		args = append(args, c.Database)
	}
	inv := invocation{path: bin, args: args, dir: j.base.path, managedDB: j.server != nil}
	if c.Password != "" {
		inv.env = []string{"PGPASSWORD=" + c.Password}
	}
	return inv
}

func (j *pgbenchJob) run() (run, error) {
	secs := int(math.Ceil(j.sp.Duration.Std().Seconds()))
	// More threads than CPUs only adds switching in pgbench itself.
	threads := min(j.sp.Threads, runtime.NumCPU())
	inv := j.invocation(j.bin, "-c", strconv.Itoa(j.sp.Threads), "-j", strconv.Itoa(threads), "-T", strconv.Itoa(secs),
		"-P", "1", "-b", j.sp.Test)
	// Progress lines come on stderr, the final report on stdout.
	return run{name: "pgbench " + j.sp.Test, invocation: inv, fromStdout: true, fromStderr: true, ownLimit: true}.reading(parse.FormatPgbench)
}

func (j *pgbenchJob) cleanup(ctx context.Context) error {
	return j.close(ctx, func() error {
		if err := j.runSync(ctx, "pgbench -i -I d", j.invocation(j.bin, "-i", "-I", "d"), nil); err != nil {
			return fmt.Errorf("drop the pgbench_* tables created in %s: %v", j.conn.Database, err)
		}
		return nil
	})
}
