package shell

import "testing"

func TestQuote(t *testing.T) {
	uu := map[string]struct{ in, want string }{
		"plain":          {"/var/lib/mysql", "/var/lib/mysql"},
		"settings":       {"size=64m,mode=0700", "size=64m,mode=0700"},
		"mount options":  {"remount,noatime,commit=60", "remount,noatime,commit=60"},
		"dash":           {"/run/perfbisect/tmpfs-1", "/run/perfbisect/tmpfs-1"},
		"space":          {"good night.jsonl", "'good night.jsonl'"},
		"single quote":   {"it's", `'it'\''s'`},
		"empty":          {"", "''"},
		"shell meta":     {"a;rm -rf /", "'a;rm -rf /'"},
		"dollar":         {"$HOME", "'$HOME'"},
		"not ascii":      {"café", "'café'"},
		"glob":           {"*.jsonl", "'*.jsonl'"},
		"newline inside": {"a\nb", "'a\nb'"},
	}
	for name, u := range uu {
		if got := Quote(u.in); got != u.want {
			t.Errorf("%s: Quote(%q) = %s, want %s", name, u.in, got, u.want)
		}
	}
	if got := Join("umount", "/run/perfbisect/tmpfs a"); got != "umount '/run/perfbisect/tmpfs a'" {
		t.Errorf("Join = %s", got)
	}
	if got := EchoTo("mq-deadline", "/sys/block/loop 0/queue/scheduler"); got != "echo mq-deadline > '/sys/block/loop 0/queue/scheduler'" {
		t.Errorf("EchoTo = %s", got)
	}
	if got := EchoTo("", "/proc/sys/vm/x"); got != "echo '' > /proc/sys/vm/x" {
		t.Errorf("EchoTo of nothing = %s", got)
	}
}
