package report

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfbisect/perfbisect/internal/testutil"
)

// TestHTMLInChromium opens the report in a real browser, offline: headless
// Chromium must render it to a PNG, and the page it parsed must hold every
// step's chart.
func TestHTMLInChromium(t *testing.T) {
	bin := testutil.RequireTool(t, "chromium")
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	if err := os.WriteFile(page, render(t, Build(stream(12), nil), FormatHTML), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	chromium := func(args ...string) []byte {
		t.Helper()
		// The flags keep a headless root Chromium off the network, which
		// this page must not need anyway.
		base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
			"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir=" + filepath.Join(dir, "profile")}
		var out, errb bytes.Buffer
		cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("chromium %v: %v\n%s", args, err, errb.String())
		}
		return out.Bytes()
	}
	png := filepath.Join(dir, "report.png")
	chromium("--screenshot="+png, "--window-size=1200,3000", "file://"+page)
	b, err := os.ReadFile(png)
	if err != nil || len(b) < 1000 || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Fatalf("no screenshot of the report: %v (%d bytes)", err, len(b))
	}
	dom := string(chromium("--dump-dom", "file://"+page))
	for _, id := range []string{"reproduce", "tmpfs", "scheduler"} {
		if !strings.Contains(dom, `id="chart-`+id+`"`) {
			t.Errorf("the browser's page has no chart for step %s", id)
		}
	}
	if n := strings.Count(dom, "<svg"); n < 3 {
		t.Errorf("%d SVG charts in the browser's page, want one or more per step", n)
	}
}
