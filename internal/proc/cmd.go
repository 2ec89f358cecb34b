// Package proc owns the child processes perfbisect starts: workloads,
// database servers and their tools, knob and lab commands, the lab's
// controller and the workload agent. It builds each command, puts it in a
// process group of its own (a signal reaches everything it started, and a
// Ctrl-C in the terminal reaches perfbisect alone), gives it a parent-death
// signal when asked, stops it with a sequence of signals and waits, kills
// what is left in its group, reads its output line by line without letting
// a grandchild that holds the pipe open hang it, keeps the last lines (and
// the first that look like errors), and says how it ended in one message
// form: "fio failed (exit status 1): …", "killed by SIGKILL".
//
// Callers start children through a Runner, so that a test can put a fake
// in its place (package proctest); Real is the one that starts processes.
package proc

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// Cmd is a program to run and how to treat it.
type Cmd struct {
	// Name names the program in messages ("sysbench prepare", "mount -o
	// remount,noatime /data"); the base name of Path when empty.
	Name string
	Path string // the program, found on PATH when it has no slash
	Args []string
	Dir  string   // its working directory; "" is perfbisect's
	Env  []string // its whole environment; nil is perfbisect's own
	// Files are passed to it as fds 3, 4, …; Start closes them, whether or
	// not the program started.
	Files []*os.File
	// Credential runs it as another user (PostgreSQL refuses root).
	Credential *syscall.Credential

	// ParentDeath is the signal the kernel sends it when perfbisect dies;
	// 0 sends none. Workloads and servers take SIGKILL (nothing is left
	// running after a kill -9). The agent takes none: its stdin closes when
	// perfbisect dies, and it then puts its files and servers away. Knob and
	// lab commands take none, on purpose: a remount or a revert cut short
	// halfway leaves the host in a state nobody planned, so each is allowed
	// to finish.
	ParentDeath syscall.Signal
	// Stop is how it is asked to end, when its context is done or Stop is
	// called: each step in turn, then SIGKILL to its process group. An
	// empty Stop is SIGKILL at once.
	Stop []Step
	// Timeout, when not 0, stops it that long after it started; its
	// failure then says "killed after the 1m0s timeout".
	Timeout time.Duration
	// StdinPipe gives it a pipe as stdin (Process.Stdin); otherwise its
	// stdin is /dev/null.
	StdinPipe bool

	// Line, when set, is called with each line of its output, one call at
	// a time, stdout's and stderr's lines each in their order; every call
	// has returned when Done is closed. A slow Line slows the program down
	// (its pipe fills up), as a reader of the pipe would.
	Line func(Line)
	// Keep is how many of its last lines a message quotes (DefaultKeep
	// when 0); Quote says from which output.
	Keep  int
	Quote From
}

// A Step of a stop sequence: send Signal (or close the program's stdin),
// then give it Wait to exit before the next step.
type Step struct {
	Signal syscall.Signal
	// Leader sends Signal to the program alone, not its process group: a
	// server's shutdown signal is for the server, which stops its own
	// children (PostgreSQL's backends take SIGINT as "cancel the query").
	Leader bool
	// CloseStdin closes its stdin instead of signalling (the agent stops
	// when its request stream ends).
	CloseStdin bool
	Wait       time.Duration
}

// From says which output a message quotes.
type From int

const (
	// StderrOrStdout quotes stderr, or stdout when stderr said nothing.
	StderrOrStdout From = iota
	// StderrOnly quotes stderr (a stdout of JSON or of samples is no
	// explanation).
	StderrOnly
	// Interleaved quotes both as they came (a server's log, a shell
	// script's chatter).
	Interleaved
)

// Line is one line of a program's output, without its newline.
type Line struct {
	Text   string
	Stderr bool
}

const (
	// DefaultKeep is how many lines a message quotes when Cmd.Keep is 0.
	DefaultKeep = 10
	// drainWait bounds the reading of a program's output once it has
	// exited: a grandchild that left its process group may hold the pipe.
	drainWait = 2 * time.Second
	// killWait bounds the wait for a program after SIGKILL; only one stuck
	// in the kernel (D state) takes longer.
	killWait = 10 * time.Second
)

// Title is the program's name in messages: Name, or the base name of Path.
func (c *Cmd) Title() string {
	if c.Name != "" {
		return c.Name
	}
	return filepath.Base(c.Path)
}

// command is the exec.Cmd of c, with attr (its process group or session,
// its parent-death signal) and c's credential.
func (c *Cmd) command(attr *syscall.SysProcAttr) *exec.Cmd {
	cmd := exec.Command(c.Path, c.Args...)
	cmd.Dir, cmd.Env, cmd.ExtraFiles = c.Dir, c.Env, c.Files
	attr.Credential = c.Credential
	cmd.SysProcAttr = attr
	return cmd
}

func closeAll(fs []*os.File) {
	for _, f := range fs {
		f.Close()
	}
}
