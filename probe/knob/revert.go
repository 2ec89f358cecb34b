package knob

import (
	"context"
	"sync"
	"time"

	"github.com/perfbisect/perfbisect/internal/proc"
	"github.com/perfbisect/perfbisect/internal/shell"
)

// once makes a revert safe to call more than once: after it has succeeded,
// later calls do nothing. After a failure the next call tries again; each
// revert keeps track of what it has already put back, so only what is left
// is retried.
func once(f Revert) Revert {
	var (
		mu   sync.Mutex
		done bool
	)
	return func(ctx context.Context) error {
		mu.Lock()
		defer mu.Unlock()
		if done {
			return nil
		}
		if err := f(ctx); err != nil {
			return err
		}
		done = true
		return nil
	}
}

// detached is the context a revert runs its commands under. A revert must
// finish even when the step was cancelled (Ctrl-C is when reverts matter
// most), so it ignores ctx's cancellation, keeping its values, and is
// bounded by its own timeout instead.
func detached(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), d)
}

// nothingToRevert is the revert of a knob that changed nothing on the host.
func nothingToRevert(context.Context) error { return nil }

// sleep waits d, or less when ctx ends first.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// run runs a command a knob needs (mount, a playbook's shell command), not
// through a shell, and returns its stdout. The command runs in its own
// process group, all of which is killed when ctx ends (a timeout), but it
// gets no parent-death signal, on purpose: a remount or a revert cut short
// halfway by perfbisect's death leaves the host in a state nobody planned,
// so each is allowed to finish. Its failure names the command as an
// operator would type it, how it ended and what it said.
func run(ctx context.Context, env Env, c proc.Cmd) (string, error) {
	if c.Name == "" {
		c.Name = shown(c)
	}
	res, err := proc.Or(env.Runner).Run(ctx, c)
	return res.Stdout, err
}

// shown is c as an operator would type it, for a Change and for messages.
func shown(c proc.Cmd) string { return shell.Join(append([]string{c.Path}, c.Args...)...) }
