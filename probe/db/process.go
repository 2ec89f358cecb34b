package db

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/perfbisect/perfbisect/internal/child"
	"github.com/perfbisect/perfbisect/internal/tail"
)

const (
	// killWait bounds the wait for a process after SIGKILL; only a process
	// stuck in the kernel (D state) takes longer.
	killWait = 10 * time.Second
	// pipeWait bounds how long a finished process's output pipe is read
	// while a child it left behind still holds it open.
	pipeWait = 2 * time.Second
	// tailLines is how many lines of a log an error quotes.
	tailLines = 10
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

// command builds the exec.Cmd. Every child runs in its own process group,
// so that a Ctrl-C in the terminal reaches perfbisect alone and a whole
// server (PostgreSQL forks) can be killed at once, and gets SIGKILL when the
// thread that started it exits (see child.Start).
func (e *execSpec) command(ctx context.Context) *exec.Cmd {
	c := exec.CommandContext(ctx, e.path, e.args...)
	c.Dir = e.dir
	c.Env = childEnv(e.as)
	child.Own(c)
	if e.as != nil {
		c.SysProcAttr.Credential = &syscall.Credential{Uid: e.as.uid, Gid: e.as.gid, Groups: e.as.groups}
	}
	// mariadb-install-db is a shell script running mariadbd: kill them all.
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
	c.WaitDelay = pipeWait
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
// and returns its standard output. Its error quotes the last lines of the
// program's output.
func runTool(ctx context.Context, spec *execSpec) (string, error) {
	c := spec.command(ctx)
	var stdout bytes.Buffer
	all := newLogTail(nil)
	c.Stdout = io.MultiWriter(&stdout, all)
	c.Stderr = all
	waited, err := child.Start(c)
	if err != nil {
		return "", fmt.Errorf("%s: %w", spec.name(), err)
	}
	if err := <-waited; err != nil {
		if ctx.Err() != nil {
			err = context.Cause(ctx)
		}
		return "", fmt.Errorf("%s: %w%s", spec.name(), err, ends(all, "output"))
	}
	return strings.TrimRight(stdout.String(), "\n"), nil
}

// process is a running server.
type process struct {
	name string
	pid  int // also its process group id
	log  *tail.Lines
	done chan struct{} // closed when it has exited
	err  error         // how it exited; set before done is closed
}

// startProcess starts a server in the foreground as our child, its output
// going to log (which may be nil) and to a tail kept for errors.
func startProcess(spec *execSpec, log io.Writer) (*process, error) {
	// The server must outlive Start's ctx: Stop ends it.
	c := spec.command(context.Background())
	p := &process{name: spec.name(), log: newLogTail(log), done: make(chan struct{})}
	c.Stdout = p.log
	c.Stderr = p.log
	waited, err := child.Start(c)
	if err != nil {
		return nil, err
	}
	p.pid = c.Process.Pid
	go func() {
		p.err = <-waited
		close(p.done)
	}()
	return p, nil
}

// exitErr says how the process ended, once done is closed.
func (p *process) exitErr() error {
	if p.err == nil {
		return errors.New("exit status 0")
	}
	return p.err
}

// stop sends sig and waits up to grace (or until ctx is done) for the
// process to exit, then kills its process group. A server that had already
// exited is not an error: its data dir goes anyway.
func (p *process) stop(ctx context.Context, sig syscall.Signal, grace time.Duration) error {
	select {
	case <-p.done:
	default:
		if grace > 0 {
			if err := syscall.Kill(p.pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
				return fmt.Errorf("signal %s (pid %d): %w", p.name, p.pid, err)
			}
			t := time.NewTimer(grace)
			defer t.Stop()
			select {
			case <-p.done:
			case <-t.C:
				p.log.Add(fmt.Sprintf("perfbisect: %s (pid %d) did not shut down within %s; killing it", p.name, p.pid, grace))
			case <-ctx.Done():
				p.log.Add(fmt.Sprintf("perfbisect: %s (pid %d) killed before a clean shutdown: %v", p.name, p.pid, context.Cause(ctx)))
			}
		}
	}
	// Kill whatever is left of the group: all of it when the shutdown timed
	// out, or children (PostgreSQL backends) of a server that crashed.
	if err := syscall.Kill(-p.pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("kill %s (process group %d): %w", p.name, p.pid, err)
	}
	select {
	case <-p.done:
		return nil
	case <-time.After(killWait):
		return fmt.Errorf("%s (pid %d) has not exited %s after SIGKILL; it is probably stuck on I/O", p.name, p.pid, killWait)
	}
}

// newLogTail keeps the last lines of a program's output, and its first
// error lines, for errors (see ends), passing whole lines on to out (which
// may be nil).
func newLogTail(out io.Writer) *tail.Lines {
	return &tail.Lines{Keep: tailLines, Out: out, Errors: errorLine}
}

// errorLine matches how MariaDB/MySQL ("[ERROR]", "ERROR 1051", "ERROR:"),
// PostgreSQL ("FATAL:", "PANIC:", "initdb: error:") and shell scripts
// report errors.
var errorLine = regexp.MustCompile(`\[ERROR\]|^ERROR\b|\b(FATAL|PANIC):|^[\w.-]+: error:`)

// ends ends an error message with the last lines of a program's "output"
// or "log", after any error lines it printed before them: a failing
// mariadb-install-db's cause comes before twenty lines of advice.
func ends(l *tail.Lines, what string) string {
	last := l.Last()
	if len(last) == 0 {
		return " (its " + what + " is empty)"
	}
	if e := l.Earlier(); len(e) > 0 {
		return "; its " + what + " says:\n" + indent(e) + "\n  and ends:\n" + indent(last)
	}
	return "; its " + what + " ends:\n" + indent(last)
}

func indent(lines []string) string { return "    " + strings.Join(lines, "\n    ") }
