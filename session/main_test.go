package session

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"testing"

	"github.com/perfbisect/perfbisect/probe/host"
)

// The test binary doubles as `perfbisect agent`, so the runner's tests run
// their workloads in a real child process, as perfbisect does.
func TestMain(m *testing.M) {
	if os.Getenv("PERFBISECT_TEST_AGENT") == "1" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err := host.ServeAgent(ctx, os.Stdin, os.Stdout)
		stop()
		if err != nil && err != host.ErrAgentInterrupted {
			fmt.Fprintln(os.Stderr, "perfbisect:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// testHost is the local host with this test binary as its agent and its
// knob state in a directory of the test's own.
func testHost(t *testing.T) *host.Local {
	t.Helper()
	h := host.NewLocal()
	h.Env.StateDir = t.TempDir()
	h.Agent = func(ctx context.Context) *exec.Cmd {
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "PERFBISECT_TEST_AGENT=1")
		return cmd
	}
	return h
}
