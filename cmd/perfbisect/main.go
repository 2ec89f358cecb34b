// Command perfbisect walks an engineer through bisecting a storage and
// database write regression, one measured step at a time. This package
// parses flags, wires the packages below and maps errors to exit codes;
// what the commands do lives in those packages.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

// guarded is set while a command has host changes to put back: a second
// Ctrl-C then warns instead of killing, and only a third abandons them.
var guarded atomic.Bool

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	// A write to a closed stdout or stderr (a pipe into head, a vanished
	// terminal) must fail with EPIPE, which the walk ignores, instead of
	// killing the process with knobs applied. Notify rather than Ignore:
	// an ignored signal stays ignored in the workloads and shell knobs
	// started from here, a caught one is reset for them.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		n := 0
		for s := range sigs {
			if s == syscall.SIGHUP {
				// The terminal is gone (ssh dropped, tmux killed): stop
				// as SIGTERM does. Nobody is there to insist, so a hang-up
				// never counts towards abandoning the reverts.
				cancel()
				continue
			}
			n++
			switch {
			case n == 1:
				cancel()
			case guarded.Load() && n == 2:
				fmt.Fprintln(os.Stderr, "perfbisect: putting the host back first; Ctrl-C once more abandons the reverts and leaves the host changed")
			default:
				os.Exit(exitInterrupted)
			}
		}
	}()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	os.Exit(exitCode(err, os.Stderr))
}
