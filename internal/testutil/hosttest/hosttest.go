// Package hosttest runs real workloads in tests, as net/http/httptest runs
// real servers: the test binary doubles as `perfbisect agent`, so a test's
// walk measures in a real child process, as perfbisect does; beside it,
// Fake is a scripted host for the paths of a walk no real machine can be
// made to take on cue. It imports probe/host, so only host's external tests
// (package host_test) and those of the packages above it (session, tui,
// cmd) can use it.
package hosttest

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/perfbisect/perfbisect/internal/proc"
	"github.com/perfbisect/perfbisect/probe/host"
	"github.com/perfbisect/perfbisect/probe/sysinfo"
)

const agentEnv = "PERFBISECT_TEST_AGENT"

// ServeIfAgent serves one workload and exits when this process was started
// as a test's agent; otherwise it returns at once. Call it first in TestMain.
func ServeIfAgent() {
	if os.Getenv(agentEnv) != "1" {
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := host.ServeAgent(ctx, os.Stdin, os.Stdout)
	stop()
	if err != nil && err != host.ErrAgentInterrupted {
		fmt.Fprintln(os.Stderr, "perfbisect:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// Main is TestMain for a package whose tests run workloads through Local:
// the test binary serves as the agent when started as one, and runs the
// tests otherwise.
func Main(m *testing.M) {
	ServeIfAgent()
	os.Exit(m.Run())
}

// Local is the local host with the test binary as its agent and the knobs'
// state in a directory of the test's own.
func Local(t testing.TB) *host.Local {
	t.Helper()
	h := host.NewLocal()
	h.Env.StateDir = t.TempDir()
	h.Agent = proc.Cmd{Path: os.Args[0], Args: []string{"-test.run=^$"}, Env: append(os.Environ(), agentEnv+"=1")}
	return h
}

// MountsUnder lists the mount points under dir, as a knob would leave them.
func MountsUnder(t testing.TB, dir string) []string {
	t.Helper()
	ms, err := sysinfo.Mounts()
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, m := range ms {
		if sysinfo.Within(m.Point, filepath.Clean(dir)) {
			left = append(left, m.Point)
		}
	}
	return left
}
