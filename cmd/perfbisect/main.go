// Command perfbisect walks an engineer through bisecting a storage and
// database write regression, one measured step at a time.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second Ctrl-C kills at once
	}()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	os.Exit(report(err, os.Stderr))
}
