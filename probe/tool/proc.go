package tool

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/perfbisect/perfbisect/internal/child"
	"github.com/perfbisect/perfbisect/internal/tail"
	"github.com/perfbisect/perfbisect/probe/db"
)

// Stopping a tool: SIGINT to its process group (fio then writes its final
// report); SIGTERM after intSlack, for a tool that inherited SIGINT ignored
// (a program started in the background by a shell without job control);
// SIGKILL after killSlack.
const (
	intSlack  = 2 * time.Second
	killSlack = 5 * time.Second
	// drainSlack bounds the reading of a tool's output once it has exited:
	// a grandchild that left its process group may hold the pipe open.
	drainSlack = 2 * time.Second
	maxLine    = 1 << 20
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
	// files are passed to the program as fds 3, 4, …; start closes them.
	files []*os.File
}

// outLine is a line of a program's output.
type outLine struct {
	text   string
	stderr bool
}

// proc is a running program in its own process group, killed if perfbisect
// dies, whose output comes line by line.
type proc struct {
	name  string // for messages: "fio", "sysbench prepare"
	cmd   *exec.Cmd
	lines chan outLine  // stdout and stderr, each in order; closed at the end of both
	done  chan struct{} // closed once the program has exited and been reaped
	err   error         // how it exited; valid once done is closed

	stopOnce sync.Once
}

// start starts inv. The program runs in a new process group (so a signal
// reaches every process it started, and a Ctrl-C in the terminal reaches
// perfbisect only), and gets SIGKILL if perfbisect dies.
func start(name string, inv invocation) (*proc, error) {
	cmd := exec.Command(inv.path, inv.args...)
	cmd.Dir = inv.dir
	base := os.Environ()
	if inv.managedDB {
		base = db.ClientEnv()
	}
	cmd.Env = append(base, inv.env...)
	cmd.ExtraFiles = inv.files
	child.Own(cmd)
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inv.files)
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(append(inv.files, outR, outW))
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	waited, err := child.Start(cmd)
	outW.Close() // the child has its own copies
	errW.Close()
	closeAll(inv.files)
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, fmt.Errorf("start %s: %v", name, err)
	}
	p := &proc{name: name, cmd: cmd, lines: make(chan outLine, 64), done: make(chan struct{})}
	var readers sync.WaitGroup
	for _, r := range []struct {
		f      *os.File
		stderr bool
	}{{outR, false}, {errR, true}} {
		readers.Add(1)
		go func() {
			defer readers.Done()
			defer r.f.Close()
			readLines(r.f, func(s string) { p.lines <- outLine{s, r.stderr} })
		}()
	}
	go func() {
		readers.Wait()
		close(p.lines)
	}()
	go func() {
		p.err = <-waited
		// Whatever the program left in its group goes with it. Its pid is
		// only reused after the kernel's pid space wraps around.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		deadline := time.Now().Add(drainSlack)
		outR.SetReadDeadline(deadline)
		errR.SetReadDeadline(deadline)
		close(p.done)
	}()
	return p, nil
}

// readLines calls fn with each line of r, without its newline, and with the
// last line even if it has none. A line longer than maxLine is cut there.
func readLines(r io.Reader, fn func(string)) {
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte
	for {
		chunk, err := br.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			if len(long) < maxLine {
				long = append(long, chunk[:min(len(chunk), maxLine-len(long))]...)
			}
			continue
		case len(long) > 0:
			if len(long) < maxLine {
				long = append(long, chunk[:min(len(chunk), maxLine-len(long))]...)
			}
			fn(strings.TrimRight(string(long), "\r\n"))
			long = long[:0]
		case len(chunk) > 0:
			fn(strings.TrimRight(string(chunk), "\r\n"))
		}
		if err != nil {
			return
		}
	}
}

// stop asks the program to end: SIGINT to its process group, then SIGTERM,
// then SIGKILL, until it has exited. It returns at once; wait on p.done.
func (p *proc) stop() {
	p.stopOnce.Do(func() {
		select {
		case <-p.done:
			return // reaped: its group id may be another's one day
		default:
		}
		pgid := -p.cmd.Process.Pid
		syscall.Kill(pgid, syscall.SIGINT)
		go func() {
			term := time.NewTimer(intSlack)
			kill := time.NewTimer(killSlack)
			defer term.Stop()
			defer kill.Stop()
			for {
				select {
				case <-p.done:
					return
				case <-term.C:
					syscall.Kill(pgid, syscall.SIGTERM)
				case <-kill.C:
					syscall.Kill(pgid, syscall.SIGKILL)
					return
				}
			}
		}()
	})
}

// tailLines is how many lines of a program's output an error quotes.
const tailLines = 6

// exitText says how a program ended: "exit status 1", "killed by SIGKILL".
func exitText(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return "killed by " + signalName(ws.Signal())
		}
	}
	return err.Error()
}

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGKILL:
		return "SIGKILL"
	}
	return s.String()
}

// runSync runs inv to its end, for the steps before and after a
// measurement (sysbench prepare, pgbench -i), calling onLine (if not nil)
// with each line of its output. When the program fails, the error quotes
// the last lines of its stderr (of its stdout when stderr said nothing). A
// cancelled ctx stops it.
func runSync(ctx context.Context, name string, inv invocation, onLine func(outLine)) error {
	p, err := start(name, inv)
	if err != nil {
		return err
	}
	said := newOutput()
	interrupted, _ := p.pump(ctx, nil, func(l outLine) {
		said.add(l)
		if onLine != nil {
			onLine(l)
		}
	})
	switch {
	case p.err != nil && interrupted:
		return fmt.Errorf("%s: interrupted", name)
	case p.err != nil && said.quote(true) == "":
		return fmt.Errorf("%s failed (%s) without a word", name, exitText(p.err))
	case p.err != nil:
		return fmt.Errorf("%s failed (%s)%s", name, exitText(p.err), said.quote(true))
	}
	return nil
}

// pump hands each line of p's output to onLine until the output ends,
// stopping p when ctx is done (interrupted) or when limit fires (ended; a
// nil limit never does). It returns once p has exited.
func (p *proc) pump(ctx context.Context, limit <-chan time.Time, onLine func(outLine)) (interrupted, ended bool) {
	done, lines := ctx.Done(), p.lines
	for lines != nil {
		select {
		case l, ok := <-lines:
			if !ok {
				lines = nil
				continue
			}
			onLine(l)
		case <-done:
			done = nil
			interrupted = true
			p.stop()
		case <-limit:
			limit = nil
			ended = true
			p.stop()
		}
	}
	<-p.done
	return interrupted, ended
}

// output keeps the last lines a program said on stderr and on stdout, for
// its errors.
type output struct{ errs, outs *tail.Lines }

func newOutput() output {
	return output{&tail.Lines{Keep: tailLines}, &tail.Lines{Keep: tailLines}}
}

func (o output) add(l outLine) {
	if l.stderr {
		o.errs.Add(l.text)
	} else {
		o.outs.Add(l.text)
	}
}

// quote is ": " and the last lines of stderr, on one line, or of stdout
// when stderr said nothing and stdoutToo; "" when there is nothing to say.
func (o output) quote(stdoutToo bool) string {
	last := o.errs.Last()
	if len(last) == 0 && stdoutToo {
		last = o.outs.Last()
	}
	if len(last) == 0 {
		return ""
	}
	for i, l := range last {
		last[i] = strings.TrimSpace(l)
	}
	return ": " + strings.Join(last, " | ")
}

func closeAll(fs []*os.File) {
	for _, f := range fs {
		f.Close()
	}
}
