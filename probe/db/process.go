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
	"sync"
	"syscall"
	"time"

	"github.com/perfbisect/perfbisect/internal/child"
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
	// errorLines is how many earlier error lines it quotes besides: a
	// failing mariadb-install-db ends with 20 lines of advice, and its
	// cause comes before them.
	errorLines = 5
	// maxLine cuts a log line that never ends.
	maxLine = 64 << 10
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
		return "", fmt.Errorf("%s: %w%s", spec.name(), err, all.ends("output"))
	}
	return strings.TrimRight(stdout.String(), "\n"), nil
}

// process is a running server.
type process struct {
	name string
	pid  int // also its process group id
	log  *logTail
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
				p.log.note(fmt.Sprintf("perfbisect: %s (pid %d) did not shut down within %s; killing it", p.name, p.pid, grace))
			case <-ctx.Done():
				p.log.note(fmt.Sprintf("perfbisect: %s (pid %d) killed before a clean shutdown: %v", p.name, p.pid, context.Cause(ctx)))
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

// logTail is an io.Writer that passes whole lines on to out (which may be
// nil) and keeps the last tailLines of them, and the first errorLines that
// look like errors, for error messages. It never fails: a failing out must
// not make the server's writes fail.
type logTail struct {
	mu      sync.Mutex
	out     io.Writer
	lines   [tailLines]string // a ring
	n       int               // lines written so far
	partial []byte
	errs    []numbered // the first error lines
}

type numbered struct {
	n    int
	line string
}

// errorLine matches how MariaDB/MySQL ("[ERROR]", "ERROR 1051", "ERROR:"),
// PostgreSQL ("FATAL:", "PANIC:", "initdb: error:") and shell scripts
// report errors.
var errorLine = regexp.MustCompile(`\[ERROR\]|^ERROR\b|\b(FATAL|PANIC):|^[\w.-]+: error:`)

func newLogTail(out io.Writer) *logTail { return &logTail{out: out} }

func (l *logTail) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.partial = append(l.partial, p...)
	rest := l.partial
	for {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			break
		}
		l.add(string(rest[:i]))
		rest = rest[i+1:]
	}
	if len(rest) > maxLine {
		l.add(string(rest))
		rest = nil
	}
	l.partial = append(l.partial[:0], rest...)
	return len(p), nil
}

// note adds a line of perfbisect's own.
func (l *logTail) note(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.add(line)
}

func (l *logTail) add(line string) {
	line = strings.TrimRight(line, "\r")
	if l.out != nil {
		_, _ = io.WriteString(l.out, line+"\n")
	}
	if len(l.errs) < errorLines && errorLine.MatchString(line) {
		l.errs = append(l.errs, numbered{l.n, line})
	}
	l.lines[l.n%tailLines] = line
	l.n++
}

// tail returns the last lines, indented, for an error message, or "".
func (l *logTail) tail() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	room := tailLines
	if len(l.partial) > 0 {
		room--
	}
	var b strings.Builder
	for i := max(0, l.n-room); i < l.n; i++ {
		b.WriteString("    " + l.lines[i%tailLines] + "\n")
	}
	if len(l.partial) > 0 {
		b.WriteString("    " + string(l.partial) + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// earlierErrors returns the error lines that came before the tail, indented,
// or "".
func (l *logTail) earlierErrors() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	from := l.n - tailLines
	if len(l.partial) > 0 {
		from++
	}
	var b strings.Builder
	for _, e := range l.errs {
		if e.n < from {
			b.WriteString("    " + e.line + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// ends ends an error message with the tail, of the program's "output" or
// "log", after any error lines it printed earlier.
func (l *logTail) ends(what string) string {
	t := l.tail()
	if t == "" {
		return " (its " + what + " is empty)"
	}
	if e := l.earlierErrors(); e != "" {
		return "; its " + what + " says:\n" + e + "\n  and ends:\n" + t
	}
	return "; its " + what + " ends:\n" + t
}
