package proc

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"syscall"
	"time"
)

// ExitError is a program that did not succeed, and the one message every
// caller gives for it: "initdb failed (exit status 1): initdb: error: …",
// "fio failed (killed by SIGKILL) without a word", "pgbench -i: interrupted".
type ExitError struct {
	Name string // as Cmd.Name
	// How it ended: "exit status 1", "killed by SIGKILL", "killed after the
	// 1m0s timeout", "timed out", or the cause its context was given.
	How string
	// Said is what it said (Output.Said); a caller that keeps its own
	// Output (a workload's lines that were not samples) may replace it.
	Said []string
	// Interrupted: its context was cancelled, so what it said is no
	// explanation of anything.
	Interrupted bool
	Err         error // the *exec.ExitError, or its context's cause
}

func (e *ExitError) Error() string {
	if e.Interrupted {
		return e.Name + ": interrupted"
	}
	s := e.Name + " failed (" + e.How + ")"
	if len(e.Said) == 0 {
		return s + " without a word"
	}
	return s + Quote(e.Said)
}

func (e *ExitError) Unwrap() error { return e.Err }

// TimeoutError is the cause of a program stopped by Cmd.Timeout.
type TimeoutError struct{ After time.Duration }

func (e *TimeoutError) Error() string { return fmt.Sprintf("killed after the %v timeout", e.After) }

// Exited says how a program that exited with werr (cmd.Wait's error) ended,
// nil when it succeeded; cause is why it was stopped (its context's cause),
// nil when it ended by itself or by Stop. A fake passes a werr whose text
// is how it ended ("exit status 3").
func Exited(name string, werr, cause error, said []string) error {
	if werr == nil {
		return nil
	}
	e := &ExitError{Name: name, How: howEnded(werr), Said: said, Err: werr}
	if cause != nil {
		e.Err = cause
		switch {
		case errors.Is(cause, context.Canceled):
			e.Interrupted, e.How = true, "interrupted"
		case errors.Is(cause, context.DeadlineExceeded):
			e.How = "timed out"
		default:
			e.How = cause.Error()
		}
	}
	return e
}

// howEnded says how a program ended: "exit status 1", "killed by SIGKILL".
func howEnded(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok {
			switch {
			case ws.Signaled():
				return "killed by " + SignalName(ws.Signal())
			case ws.Exited():
				return fmt.Sprintf("exit status %d", ws.ExitStatus())
			}
		}
	}
	return err.Error()
}

// SignalName is a signal as an operator writes it: "SIGTERM".
func SignalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	case syscall.SIGPIPE:
		return "SIGPIPE"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	case syscall.SIGABRT:
		return "SIGABRT"
	case syscall.SIGBUS:
		return "SIGBUS"
	}
	return s.String()
}
