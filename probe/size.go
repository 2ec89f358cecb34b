package probe

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Size is a number of bytes. It reads and writes the forms an operator types:
// "2300", "4k", "16KiB", "64MiB", "1g". Every unit is binary (k = KiB = 1024),
// as fio and sysbench use them, so "4k" is one page.
type Size int64

const (
	KiB Size = 1 << 10
	MiB Size = 1 << 20
	GiB Size = 1 << 30
	TiB Size = 1 << 40
)

var sizeUnits = []struct {
	names []string
	mult  Size
}{
	{[]string{"tib", "tb", "t"}, TiB},
	{[]string{"gib", "gb", "g"}, GiB},
	{[]string{"mib", "mb", "m"}, MiB},
	{[]string{"kib", "kb", "k"}, KiB},
	{[]string{"b", ""}, 1},
}

// ParseSize reads a size such as "2300", "4k" or "16KiB".
func ParseSize(s string) (Size, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	i := strings.IndexFunc(t, func(r rune) bool { return r < '0' || r > '9' })
	if i < 0 {
		i = len(t)
	}
	digits, unit := t[:i], strings.TrimSpace(t[i:])
	if digits == "" {
		return 0, fmt.Errorf("size %q: want a whole number of bytes with an optional unit, like 2300, 4k, 16KiB or 64MiB", s)
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("size %q: %v", s, err.(*strconv.NumError).Err)
	}
	for _, u := range sizeUnits {
		for _, name := range u.names {
			if unit != name {
				continue
			}
			if n > int64(TiB*1024)/int64(u.mult) {
				return 0, fmt.Errorf("size %q is too large", s)
			}
			return Size(n) * u.mult, nil
		}
	}
	return 0, fmt.Errorf("size %q: unknown unit %q (use B, k/KiB, m/MiB, g/GiB or t/TiB)", s, unit)
}

// String gives the shortest exact form: 4096 is "4KiB", 2300 is "2300B".
func (s Size) String() string {
	for _, u := range sizeUnits[:4] {
		if s != 0 && s%u.mult == 0 {
			return strconv.FormatInt(int64(s/u.mult), 10) + strings.ToUpper(u.names[0][:1]) + "iB"
		}
	}
	return strconv.FormatInt(int64(s), 10) + "B"
}

func (s Size) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

func (s *Size) UnmarshalText(b []byte) error {
	v, err := ParseSize(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// UnmarshalJSON takes a number of bytes as well as a string like "4k".
func (s *Size) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] != '"' {
		return s.UnmarshalText(b)
	}
	var str string
	if err := json.Unmarshal(b, &str); err != nil {
		return err
	}
	return s.UnmarshalText([]byte(str))
}

// Set and Type make a Size usable as a command-line flag.
func (s *Size) Set(v string) error { return s.UnmarshalText([]byte(v)) }
func (s *Size) Type() string       { return "size" }
