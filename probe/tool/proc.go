package tool

import (
	"context"
	"errors"
	"os"
	"syscall"
	"time"

	"github.com/perfbisect/perfbisect/internal/proc"
	"github.com/perfbisect/perfbisect/probe/db"
)

// Stopping a tool: SIGINT to its process group (fio then writes its final
// report); SIGTERM after intSlack, for a tool that inherited SIGINT ignored
// (a program started in the background by a shell without job control);
// SIGKILL after killSlack.
const (
	intSlack  = 2 * time.Second
	killSlack = 5 * time.Second
	// tailLines is how many lines of a program's output an error quotes.
	tailLines = 6
)

// invocation is one run of a program.
type invocation struct {
	path string
	args []string
	dir  string
	env  []string // added to perfbisect's own environment
	// managedDB leaves out of that environment the PG*, MYSQL* and MARIADB*
	// variables: a managed server and its clients are set by flags only.
	managedDB bool
	// files are passed to the program as fds 3, 4, …; the runner closes them.
	files []*os.File
}

// cmd is inv as the supervisor runs it, named name in messages: in a
// process group of its own, killed if perfbisect dies, and stopped with
// SIGINT, then SIGTERM, then SIGKILL.
func (inv invocation) cmd(name string) proc.Cmd {
	base := os.Environ()
	if inv.managedDB {
		base = db.ClientEnv()
	}
	return proc.Cmd{
		Name: name, Path: inv.path, Args: inv.args, Dir: inv.dir, Env: append(base, inv.env...), Files: inv.files,
		ParentDeath: syscall.SIGKILL,
		Stop:        []proc.Step{{Signal: syscall.SIGINT, Wait: intSlack}, {Signal: syscall.SIGTERM, Wait: killSlack - intSlack}},
		Keep:        tailLines,
	}
}

// programs starts a job's programs: through the supervisor, or a fake in
// tests.
type programs struct{ runner proc.Runner }

// start starts the measured program, which the workload reads as it runs.
func (p programs) start(ctx context.Context, c proc.Cmd) (proc.Process, error) {
	return p.runner.Start(ctx, c)
}

// runSync runs inv to its end, for the steps before and after a
// measurement (sysbench prepare, pgbench -i), calling onLine (if not nil)
// with each line of its output. When the program fails, the error quotes
// the last lines of its stderr (of its stdout when stderr said nothing). A
// cancelled ctx stops it.
func (p programs) runSync(ctx context.Context, name string, inv invocation, onLine func(proc.Line)) error {
	c := inv.cmd(name)
	c.Line = onLine
	_, err := p.runner.Run(ctx, c)
	return err
}

// requote is the message of a program's failure quoting said instead of
// everything it said: a workload's samples explain nothing.
func requote(err error, said []string) string {
	var ee *proc.ExitError
	if !errors.As(err, &ee) {
		return err.Error()
	}
	e := *ee
	e.Said = said
	return e.Error()
}
