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
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		n := 0
		for range sigs {
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
