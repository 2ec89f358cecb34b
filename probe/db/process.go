package db

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/perfbisect/perfbisect/internal/proc"
)

// execSpec is a program to run for a managed server: a tool, a client or
// the server itself.
type execSpec struct {
	path string
	args []string
	dir  string // working directory; "" for perfbisect's own
	// as, when not nil, is the OS user to run as (PostgreSQL refuses root).
	as *osUser
}

func (e *execSpec) name() string { return filepath.Base(e.path) }

// cmd is the program as the supervisor runs it: in its own process group,
// so that a Ctrl-C in the terminal reaches perfbisect alone and a whole
// server (PostgreSQL forks; mariadb-install-db is a shell script running
// mariadbd) is killed at once, and killed when perfbisect dies. Its
// messages quote its output as it came: a server logs to both.
func (e *execSpec) cmd() proc.Cmd {
	c := proc.Cmd{Path: e.path, Args: e.args, Dir: e.dir, Env: childEnv(e.as), ParentDeath: syscall.SIGKILL, Quote: proc.Interleaved}
	if e.as != nil {
		c.Credential = &syscall.Credential{Uid: e.as.uid, Gid: e.as.gid, Groups: e.as.groups}
	}
	return c
}

// ClientEnv is the environment for a program that talks to a managed
// server (sysbench, pgbench, psql): perfbisect's own, without the variables
// that would steer it (a stray MYSQL_PWD breaks the login, a PGOPTIONS
// changes what is measured).
func ClientEnv() []string { return childEnv(nil) }

// childEnv is perfbisect's environment without the variables that steer
// database clients and servers (PGHOST, PGDATA, MYSQL_PWD, MYSQL_UNIX_PORT,
// …): a managed server and its clients are configured by flags only.
func childEnv(as *osUser) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(name, "PG"), strings.HasPrefix(name, "MYSQL"), strings.HasPrefix(name, "MARIADB"):
			continue
		case as != nil && (name == "HOME" || name == "USER" || name == "LOGNAME"):
			continue
		}
		env = append(env, kv)
	}
	if as != nil {
		env = append(env, "HOME="+as.home, "USER="+as.name, "LOGNAME="+as.name)
	}
	return env
}

// runTool runs a short-lived program (an initializer, a client) to its end
// and returns its standard output. Its error quotes the first error lines
// and the last lines of the program's output.
func runTool(ctx context.Context, spec *execSpec) (string, error) {
	res, err := proc.Run(ctx, spec.cmd())
	if err != nil {
		return "", err
	}
	return strings.TrimRight(res.Stdout, "\n"), nil
}

// startServer starts a server in the foreground as our child, each line
// of its output going to log (which may be nil). The server outlives the
// ctx of Start: Stop ends it, with sig to the server alone and up to
// stopTimeout for a clean shutdown, then SIGKILL to its process group.
func startServer(spec *execSpec, sig syscall.Signal, log io.Writer) (proc.Process, error) {
	c := spec.cmd()
	c.Stop = []proc.Step{{Signal: sig, Leader: true, Wait: stopTimeout}}
	if log != nil {
		c.Line = func(l proc.Line) { io.WriteString(log, l.Text+"\n") }
	}
	return proc.Start(context.Background(), c)
}

// exited says how a server that has exited ended, failure or not: one
// that exits 0 before answering has failed to start all the same.
func exited(p proc.Process) error {
	if err := p.Wait(); err != nil {
		return err
	}
	return &proc.ExitError{Name: p.Name(), How: "exit status 0", Said: p.Output().Said(proc.Interleaved)}
}

// logSaid is ": " and what a server's log said (see proc.Quote), or that
// it said nothing.
func logSaid(p proc.Process) string {
	if s := proc.Quote(p.Output().Said(proc.Interleaved)); s != "" {
		return "; its log ends" + s
	}
	return " (its log is empty)"
}
