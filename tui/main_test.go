package tui

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	"github.com/perfbisect/perfbisect/internal/testutil/hosttest"
	"github.com/perfbisect/perfbisect/session/playbook"
)

// The test binary doubles as `perfbisect agent`, so the flow tests run their
// workloads in a real child process, as perfbisect does. Every test draws
// with the ASCII profile: goldens and WaitFor never see an escape of style.
func TestMain(m *testing.M) {
	hosttest.ServeIfAgent()
	lipgloss.SetColorProfile(termenv.Ascii)
	os.Exit(m.Run())
}

// quickPlaybook is testdata/quick.yaml: 6-second steps, a 1-second warm-up.
func quickPlaybook(t testing.TB) *playbook.Playbook {
	t.Helper()
	return readPlaybook(t, "testdata/quick.yaml")
}

func readPlaybook(t testing.TB, path string) *playbook.Playbook {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := playbook.Parse(path, data, nil)
	if err != nil {
		t.Fatalf("playbook %s: %v", path, err)
	}
	return pb
}

// updating reports whether -update was given. The flag itself is the one
// that teatest's golden package registers for this test binary (defining a
// second one would panic), so `go test ./tui -update` rewrites every
// testdata/*.golden of this package.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// requireGolden compares got with testdata/name.golden, or rewrites it under
// -update.
func requireGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if updating() {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tui -run %s -update to write it)", err, t.Name())
	}
	if string(want) != got {
		t.Errorf("View differs from %s (run with -update to accept):\n%s", path, lineDiff(string(want), got))
	}
}

// lineDiff shows the lines that differ, each with its number, wanted
// first; enough for a screen of a few dozen lines.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := range max(len(w), len(g)) {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %2d want |%s|\n        got  |%s|\n", i+1, wl, gl)
		}
	}
	return b.String()
}
