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

// TestLabConclusions runs walks with a known cause on the lab and reads the
// conclusion each prints: it must say what was measured and no more. One
// lab, short steps: the reference is the emulated gp2 volume with its
// burst credits, and
//   - no regression: the walk on that same volume must say so, and
//     prescribe nothing;
//   - no reference: on that healthy volume, the walk shows where the write
//     time goes, claims no regression and prescribes no fix;
//   - under-provisioned io1: the volume becomes io1 with 200 IOPS, and the
//     conclusion must name it as it is, never gp2.
func TestLabConclusions(t *testing.T) {
	testutil.RequireRoot(t)
	testutil.RequireTool(t, "mkfs.ext4")
	if _, err := lab.Load(); err == nil {
		testutil.Missing(t, "a lab is up on this machine; the scenarios need their own (perfbisect lab down)")
	}
	bin := binary(t)
	dir := t.TempDir()
	sh := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(bin, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("perfbisect %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	t.Cleanup(func() { exec.Command(bin, "lab", "down", "--yes").Run() })
	sh("lab", "up", "--yes", "--backing", filepath.Join(dir, "lab"), "--size", "30")
	st, err := lab.Load()
	if err != nil {
		t.Fatal(err)
	}
	ref := filepath.Join(dir, "reference.jsonl")
	out := sh("probe", "--json", "--dir", st.DataDir, "--duration", "10s", "--file-size", "16MiB", "--prealloc", "write")
	if err := os.WriteFile(ref, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
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
