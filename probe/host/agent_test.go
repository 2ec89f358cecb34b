package host_test

import (
	"os"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/testutil/hosttest"
	"github.com/perfbisect/perfbisect/probe"
)

// The test binary doubles as `perfbisect agent`, so these tests run their
// workloads in a real child process, as perfbisect does.
func TestMain(m *testing.M) {
	hosttest.ServeIfAgent()
	os.Exit(m.Run())
}

// TestAgentChildGetsSIGPIPE: the agent must not be killed by a parent that
// closed its stdout, but what it starts runs as it would from a shell, with
// SIGPIPE's default action (`yes | head` must end yes). The command fails
// when its shell, the agent's child, starts with SIGPIPE ignored (bit 13-1
// of SigIgn in /proc/PID/status).
func TestAgentChildGetsSIGPIPE(t *testing.T) {
	s := probe.DefaultFor(probe.WorkloadCommand)
	s.Dir, s.Duration = t.TempDir(), probe.Duration(time.Second)
	s.Command = `ign=$(sed -n 's/^SigIgn:[[:space:]]*//p' /proc/$$/status)
if [ $(( 0x$ign & 0x1000 )) -ne 0 ]; then echo "SIGPIPE is ignored (SigIgn $ign)" >&2; exit 3; fi
echo tps=1; sleep 30`
	s.Pattern = `tps=(?P<ops>[0-9]+)`
	run, err := hosttest.Local(t).Run(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	var secs int
	for range run.Samples() {
		secs++
	}
	sum, err := run.Wait()
	if err != nil || secs != 1 || sum.Ended != probe.EndCompleted {
		t.Errorf("%d s, ended %s: %v; want the one second of a command with SIGPIPE's default action", secs, sum.Ended, err)
	}
}
