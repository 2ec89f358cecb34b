package report

import (
	"strings"
	"testing"

	"github.com/perfbisect/perfbisect/session"
)

// killed is the fixed walk as a perfbisect killed with SIGKILL in its tmpfs
// step leaves it: the tmpfs applied (its journal entry named), a few
// seconds, then nothing: no revert, no step end, no session end.
func killed(t *testing.T) []session.Event {
	t.Helper()
	evs := stream(6)
	for i, e := range evs {
		k, ok := e.Data.(*session.KnobEvent)
		if !ok || e.Step != "tmpfs" || k.Action != session.KnobApplied {
			continue
		}
		applied := *k
		applied.Change.Journal = "/run/perfbisect/journal/4242-1-1.json"
		applied.Change.After = "tmpfs size=1GiB at /run/perfbisect/tmpfs-1234 (rw,nosuid,nodev,size=1048576k,mode=700)"
		evs[i].Data = &applied
		return evs[:i+4]
	}
	t.Fatal("no tmpfs applied in the stream")
	return nil
}

// TestNotPutBackReport: the report of a log that left a knob applied says
// so, loudly, in every format, and points at perfbisect recover, where it
// said "Errors and reverts: None."
func TestNotPutBackReport(t *testing.T) {
	r := Build(killed(t), nil)
	md := render(t, r, FormatMarkdown)
	golden(t, "killed.md.golden", md)
	want := "**NOT PUT BACK** tmpfs size=1g: tmpfs size=1GiB at /run/perfbisect/tmpfs-1234"
	if !strings.Contains(string(md), want) || !strings.Contains(string(md), "perfbisect recover") {
		t.Errorf("markdown lacks %q and recover", want)
	}
	if strings.Contains(string(md), "## Errors and reverts\n\nNone.") {
		t.Error("markdown says no errors and reverts")
	}
	if html := string(render(t, r, FormatHTML)); !strings.Contains(html, "NOT PUT BACK") || !strings.Contains(html, "perfbisect recover") {
		t.Error("html lacks NOT PUT BACK and recover")
	}
	js := string(render(t, r, FormatJSON))
	if !strings.Contains(js, `"not_put_back": true`) || !strings.Contains(js, "NOT PUT BACK: tmpfs size=1g") {
		t.Errorf("json lacks the knob not put back:\n%s", js)
	}
	// The whole walk put its tmpfs back: nothing to say.
	if s := string(render(t, Build(stream(6), nil), FormatMarkdown)); strings.Contains(s, "NOT PUT BACK") {
		t.Error("a walk that put everything back says NOT PUT BACK")
	}
}
