package probe

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	uu := map[string]struct {
		in   string
		want Size
	}{
		"plain bytes":          {"2300", 2300},
		"zero":                 {"0", 0},
		"byte unit":            {"2300B", 2300},
		"byte unit lower":      {"2300b", 2300},
		"k":                    {"4k", 4096},
		"K":                    {"4K", 4096},
		"kb":                   {"4kb", 4096},
		"KiB":                  {"16KiB", 16 * 1024},
		"kib":                  {"16kib", 16 * 1024},
		"KIB":                  {"16KIB", 16 * 1024},
		"MiB":                  {"64MiB", 64 << 20},
		"m":                    {"64m", 64 << 20},
		"MB is binary":         {"64MB", 64 << 20},
		"g":                    {"1g", 1 << 30},
		"GiB":                  {"1GiB", 1 << 30},
		"t":                    {"2t", 2 << 40},
		"TiB":                  {"2TiB", 2 << 40},
		"space before unit":    {"4 k", 4096},
		"spaces around":        {"  4 KiB \t", 4096},
		"leading zeros":        {"0004k", 4096},
		"largest accepted":     {"1024t", 1024 << 40},
		"largest in bytes":     {"1125899906842624", 1 << 50},
		"zero with unit":       {"0g", 0},
		"odd number with unit": {"3m", 3 << 20},
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) {
			got, err := ParseSize(u.in)
			if err != nil {
				t.Fatalf("ParseSize(%q): %v", u.in, err)
			}
			if got != u.want {
				t.Errorf("ParseSize(%q) = %d, want %d", u.in, int64(got), int64(u.want))
			}
		})
	}
}

func TestParseSizeErrors(t *testing.T) {
	uu := map[string]struct {
		in      string
		wantErr string // a fragment the message must hold, besides the input
	}{
		"empty":             {"", "want a whole number of bytes"},
		"only spaces":       {"   ", "want a whole number of bytes"},
		"hex":               {"0x10", `unknown unit "x10"`},
		"negative":          {"-1", "want a whole number of bytes"},
		"plus sign":         {"+1", "want a whole number of bytes"},
		"unknown unit":      {"4q", `unknown unit "q"`},
		"unit alone":        {"k", "want a whole number of bytes"},
		"fraction":          {"1.5k", `unknown unit ".5k"`},
		"int64 overflow":    {"99999999999999999999", "out of range"},
		"over 1 PiB":        {"2000000t", "too large"},
		"just over in t":    {"1025t", "too large"},
		"just over in g":    {"1048577g", "too large"},
		"just over in b":    {"1125899906842625", "too large"},
		"overflow in unit":  {"9223372036854775807k", "too large"},
		"two units":         {"4kk", `unknown unit "kk"`},
		"digits after unit": {"4k4", `unknown unit "k4"`},
		"ib without prefix": {"4iB", `unknown unit "ib"`},
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) {
			got, err := ParseSize(u.in)
			if err == nil {
				t.Fatalf("ParseSize(%q) = %d, want an error", u.in, int64(got))
			}
			if got != 0 {
				t.Errorf("ParseSize(%q) returned %d with its error, want 0", u.in, int64(got))
			}
			msg := err.Error()
			if !strings.Contains(msg, "size ") || !strings.Contains(msg, fmt.Sprintf("%q", u.in)) {
				t.Errorf("ParseSize(%q) error %q does not name the input", u.in, msg)
			}
			if !strings.Contains(msg, u.wantErr) {
				t.Errorf("ParseSize(%q) error %q, want it to contain %q", u.in, msg, u.wantErr)
			}
		})
	}
}

func TestSizeString(t *testing.T) {
	uu := map[string]struct {
		in   Size
		want string
	}{
		"zero":              {0, "0B"},
		"one byte":          {1, "1B"},
		"not a multiple":    {2300, "2300B"},
		"one under KiB":     {1023, "1023B"},
		"page":              {4096, "4KiB"},
		"kib not mib":       {1536 * KiB, "1536KiB"},
		"mib":               {64 * MiB, "64MiB"},
		"gib":               {GiB, "1GiB"},
		"tib":               {3 * TiB, "3TiB"},
		"1024 tib":          {1024 * TiB, "1024TiB"},
		"mixed stays exact": {GiB + 512, "1073742336B"},
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) {
			if got := u.in.String(); got != u.want {
				t.Errorf("Size(%d).String() = %q, want %q", int64(u.in), got, u.want)
			}
		})
	}
}

func TestSizeRoundTrip(t *testing.T) {
	for _, s := range []Size{0, 1, 511, 512, 2300, 4 * KiB, 16 * KiB, 1536 * KiB, 64 * MiB, GiB, GiB + 1, 7 * TiB, 1024 * TiB} {
		got, err := ParseSize(s.String())
		if err != nil {
			t.Errorf("ParseSize(%q) (from Size(%d)): %v", s.String(), int64(s), err)
			continue
		}
		if got != s {
			t.Errorf("ParseSize(Size(%d).String() = %q) = %d", int64(s), s.String(), int64(got))
		}
	}
}

func TestSizeFlagAndText(t *testing.T) {
	var s Size
	if got := s.Type(); got != "size" {
		t.Errorf("Type() = %q, want size", got)
	}
	if err := s.Set("16k"); err != nil {
		t.Fatalf("Set(16k): %v", err)
	}
	if s != 16*KiB {
		t.Errorf("after Set(16k): %d, want %d", int64(s), int64(16*KiB))
	}
	if err := s.Set("16q"); err == nil {
		t.Errorf("Set(16q) gave no error")
	}
	if s != 16*KiB {
		t.Errorf("a failed Set changed the value to %d", int64(s))
	}
	b, err := s.MarshalText()
	if err != nil || string(b) != "16KiB" {
		t.Errorf("MarshalText() = %q, %v; want 16KiB", b, err)
	}
	var back Size
	if err := back.UnmarshalText(b); err != nil || back != s {
		t.Errorf("UnmarshalText(%q) = %d, %v; want %d", b, int64(back), err, int64(s))
	}
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{
		"2300", "4k", "16KiB", "64MiB", "1g", "4 k", "", "0x10", "-1", "4q", "k",
		"99999999999999999999", "2000000t", "1024t", "1025t", "0", "0B", " 7 tb ",
		"1125899906842624", "4\u212a", "\xff", "00000000000000000000000001k",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := ParseSize(in)
		if err != nil {
			if got != 0 {
				t.Errorf("ParseSize(%q) = %d with error %v, want 0", in, int64(got), err)
			}
			return
		}
		if got < 0 {
			t.Fatalf("ParseSize(%q) = %d, a negative size", in, int64(got))
		}
		if got > 1024*TiB {
			t.Fatalf("ParseSize(%q) = %d, above the 1024TiB limit", in, int64(got))
		}
		str := got.String()
		back, err := ParseSize(str)
		if err != nil {
			t.Fatalf("ParseSize(%q) = %d, but its String %q does not parse: %v", in, int64(got), str, err)
		}
		if back != got {
			t.Fatalf("ParseSize(%q) = %d, String %q, parsed back as %d", in, int64(got), str, int64(back))
		}
	})
}
