package host_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/proc"
	"github.com/perfbisect/perfbisect/internal/testutil/hosttest"
	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/lab"
)

func TestMain(m *testing.M) { hosttest.Main(m) }

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

// TestAgentStream reads what an agent prints as the agent's stream is
// read: every whole line counts, a bad one is reported after the run, and
// the run's end is the summary's.
func TestAgentStream(t *testing.T) {
	const (
		sample  = `{"type":"sample","sec":1,"ops_per_s":100}`
		summary = `{"type":"summary","ended":"completed","ops":100}`
	)
	for name, u := range map[string]struct {
		out  string
		secs int
		want string
	}{
		"whole": {sample + "\n" + summary + "\n", 1, ""},
		"bad line": {sample + "\nnot json\n" + sample + "\n" + summary + "\n", 2,
			"workload agent output: line 2: invalid character 'o' in literal null (expecting 'u')"},
		"two bad lines": {"{\n" + sample + "\nnot json\n" + summary + "\n", 1,
			"workload agent output: line 1: unexpected end of JSON input (and 1 more unreadable lines)"},
		// proc hands over a last line without its newline as a line:
		// what is cut short is bad, not torn.
		"torn tail":        {sample + "\n" + summary + "\n" + `{"type":"sam`, 1, "workload agent output: line 3: unexpected end of JSON input"},
		"no summary":       {sample + "\n" + `{"type":"sam`, 1, "workload agent ended without a summary after 1 s"},
		"blank and others": {"\n" + `{"type":"other"}` + "\n\n" + summary, 0, ""},
	} {
		t.Run(name, func(t *testing.T) {
			h := hosttest.Local(t)
			h.Agent = proc.Cmd{Path: "sh", Args: []string{"-c", `read -r req; printf %s "$0"`, u.out}}
			s := probe.DefaultSpec()
			s.Dir = t.TempDir()
			run, err := h.Run(t.Context(), s)
			if err != nil {
				t.Fatal(err)
			}
			var secs int
			for range run.Samples() {
				secs++
			}
			_, err = run.Wait()
			got := ""
			if err != nil {
				got = err.Error()
			}
			if secs != u.secs || got != u.want {
				t.Errorf("%d s, %q; want %d s, %q", secs, got, u.secs, u.want)
			}
		})
	}
}

// TestRunRefusesAnUnreadableLab: a lab whose state cannot be read may be
// up, and a workload on its volume would then be measured unthrottled:
// the run does not start.
func TestRunRefusesAnUnreadableLab(t *testing.T) {
	state := filepath.Join(t.TempDir(), "lab.json")
	if err := os.WriteFile(state, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	defer func(old string) { lab.StateFile = old }(lab.StateFile)
	lab.StateFile = state
	s := probe.DefaultSpec()
	s.Dir = t.TempDir()
	run, err := hosttest.Local(t).Run(t.Context(), s)
	if err == nil {
		run.Wait()
		t.Fatal("the workload ran beside a lab whose state cannot be read")
	}
	if !strings.Contains(err.Error(), state) {
		t.Errorf("Run: %v; want the state file named", err)
	}
}
