package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfbisect/perfbisect/internal/testutil"
	"github.com/perfbisect/perfbisect/probe/lab"
)

// labTest is a lab brought up for one test (an emulated gp2 30 GiB volume
// with its burst credits), taken down after it, with the fsync probe's
// reference measured on it as ebs-lab runs it.
type labTest struct {
	t                 *testing.T
	bin, dir, backing string
	st                *lab.State
	ref               string // the reference's file
}

// upLab brings the lab up for the test (lab up with args added), on a
// machine with no lab of its own.
func upLab(t *testing.T, args ...string) *labTest {
	t.Helper()
	testutil.RequireRoot(t)
	testutil.RequireTool(t, "mkfs.ext4")
	if _, err := lab.Load(); err == nil {
		testutil.Missing(t, "a lab is up on this machine; "+t.Name()+" needs its own (perfbisect lab down)")
	}
	l := &labTest{t: t, bin: binary(t), dir: t.TempDir()}
	l.backing = filepath.Join(l.dir, "lab")
	t.Cleanup(func() { exec.Command(l.bin, "lab", "down", "--yes").Run() })
	up := l.run(append([]string{"lab", "up", "--yes", "--backing", l.backing, "--size", "30"}, args...)...)
	st, err := lab.Load()
	if err != nil {
		t.Fatalf("after lab up: %v\n%s", err, up)
	}
	l.st, l.ref = st, filepath.Join(l.dir, "reference.jsonl")
	out := l.run("probe", "--json", "--dir", st.DataDir, "--duration", "10s", "--file-size", "16MiB", "--prealloc", "write")
	if err := os.WriteFile(l.ref, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	return l
}

// run runs perfbisect and fails the test when it fails.
func (l *labTest) run(args ...string) string {
	l.t.Helper()
	out, err := exec.Command(l.bin, args...).CombinedOutput()
	if err != nil {
		l.t.Fatalf("perfbisect %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestLabConclusions runs walks with a known cause on the lab and reads the
// conclusion each prints: it must say what was measured and no more. One
// lab at a quarter speed, as TestLabStory's (so the machine's own disk is
// never the limit), and short steps. The reference is the emulated gp2
// volume with its burst credits, and
//   - no regression: the walk on that same volume must say so, and
//     prescribe nothing;
//   - no reference: on that healthy volume, the walk shows where the write
//     time goes, claims no regression and prescribes no fix;
//   - under-provisioned io1: the volume becomes io1 with 200 IOPS, and the
//     conclusion must name it as it is, never gp2.
func TestLabConclusions(t *testing.T) {
	l := upLab(t, "--scale", "0.25")
	sh, dir, st, ref := l.run, l.dir, l.st, l.ref
	// walk runs ebs-lab on the lab's volume and returns what it printed and
	// its conclusion as printed.
	walk := func(name string, args ...string) (string, string) {
		t.Helper()
		args = append([]string{"run", "--no-tui", "--yes", "--playbook", "ebs-lab", "--dir", st.DataDir, "--duration", "7s",
			"--record", filepath.Join(dir, name+".jsonl")}, args...)
		out := sh(args...)
		_, c, ok := strings.Cut(out, "\nconclusion: ")
		if !ok {
			t.Fatalf("%s: no conclusion printed:\n%s", name, out)
		}
		c, _, _ = strings.Cut(c, "\n")
		t.Logf("%s: conclusion: %s", name, c)
		return out, c
	}
	prescribes := func(name, c string) {
		t.Helper()
		for _, fix := range []string{"Move the", "io2", "faster device", "ModifyVolume", "Set none"} {
			if strings.Contains(c, fix) {
				t.Errorf("%s: the conclusion prescribes a fix (%q): %s", name, fix, c)
			}
		}
	}

	_, c := walk("no-regression", "--reference", ref)
	if !strings.HasPrefix(c, "Not reproduced") || !strings.Contains(c, "Measured: reproduce same") {
		t.Errorf("no regression: the conclusion must say it was not reproduced, from the reproduce step: %s", c)
	}
	prescribes("no regression", c)

	printed, c := walk("no-reference", "--max-duration", "7s")
	if !strings.Contains(printed, "reference: none: no reference, so no regression to bisect") || !strings.Contains(printed, "baseline ops_per_s") {
		t.Errorf("no reference: the header and the table must say so:\n%s", printed)
	}
	if !strings.HasPrefix(c, "No reference was given, so there is no regression to bisect") || !strings.Contains(c, "No fix is prescribed") ||
		!strings.Contains(c, "reproduce measured (the baseline)") {
		t.Errorf("no reference: %s", c)
	}
	prescribes("no reference", c)

	sh("lab", "up", "--yes", "--type", "io1", "--iops", "200")
	printed, c = walk("io1", "--reference", ref, "--max-duration", "7s")
	if !strings.Contains(c, "io1") || !strings.Contains(c, "200 IOPS") || strings.Contains(c, "gp2") || !strings.Contains(c, "reproduce regressed") {
		t.Errorf("io1 with 200 IOPS: the conclusion must name the volume as it is (io1, 200 IOPS), never gp2, after a regression:\n%s", printed)
	}
	if after, err := lab.Load(); err != nil || after.Model.Type != "io1" || after.Model.IOPS != 200 {
		t.Errorf("after the walk the lab is %+v (%v), want the io1 volume put back", after, err)
	}
}
