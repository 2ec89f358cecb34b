package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/perfbisect/perfbisect/probe/journal"
)

// The test binary doubles as perfbisect for `perfbisect agent`, which the
// local host starts as os.Executable() with the argument "agent".
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "agent" {
		os.Exit(exitCode(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr), os.Stderr))
	}
	if len(os.Args) > 2 && os.Args[1] == "cpu-loop" {
		cpuLoop(os.Args[2]) // a CPU-bound workload for the scenarios
	}
	// A journal of the tests' own: a test that leaves a change behind on
	// purpose (kill -9, a failed revert) must not stop the machine's walks,
	// nor an earlier crashed run stop these.
	jdir, err := os.MkdirTemp("", "perfbisect-journal-")
	if err != nil {
		panic(err)
	}
	os.Setenv(journal.DirEnv, jdir)
	code := m.Run()
	os.RemoveAll(jdir)
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
	buildOut  []byte
)

// binary builds perfbisect once for the tests that drive the real program.
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "perfbisect-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "perfbisect")
		buildOut, buildErr = exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("go build: %v\n%s", buildErr, buildOut)
	}
	return binPath
}
