package knob

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/perfbisect/perfbisect/probe"
)

// checkSettings refuses a setting the knob does not take, naming the ones
// it does, so a typo in a playbook is caught before anything runs.
func checkSettings(knob string, s Settings, known map[string]string) error {
	for _, name := range slices.Sorted(maps.Keys(s)) {
		if _, ok := known[name]; !ok {
			return fmt.Errorf("%s: unknown setting %q (%s takes: %s)", knob, name, knob, strings.Join(slices.Sorted(maps.Keys(known)), ", "))
		}
	}
	return nil
}

// required returns a setting that must be given and not blank; want says
// what is allowed, for the error.
func required(knob string, s Settings, name, want string) (string, error) {
	v, ok := s[name]
	if !ok || strings.TrimSpace(v) == "" {
		return "", fmt.Errorf("%s: setting %q is required: %s", knob, name, want)
	}
	return v, nil
}

// oneOf checks a setting against its allowed values.
func oneOf(knob, name, v string, allowed ...string) error {
	if slices.Contains(allowed, v) {
		return nil
	}
	return fmt.Errorf("%s: %s %q: want one of %s", knob, name, v, strings.Join(allowed, ", "))
}

// parseBool reads the two spellings a playbook uses for a yes/no setting.
func parseBool(knob, name, v string) (bool, error) {
	switch v {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("%s: %s %q: want true or false", knob, name, v)
}

func parseSize(knob, name, v string) (probe.Size, error) {
	n, err := probe.ParseSize(v)
	if err != nil {
		return 0, fmt.Errorf("%s: %s: %v", knob, name, err)
	}
	if n <= 0 {
		return 0, fmt.Errorf("%s: %s %q: want a size above zero, like 512m or 2g", knob, name, v)
	}
	return n, nil
}

func parseDuration(knob, name, v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s: %s %q: want a positive duration with a unit, like 30s or 5m", knob, name, v)
	}
	return d, nil
}

// withDefaults returns the settings as given plus the defaults the knob
// chose, for the session log: a step records exactly what it ran with.
func withDefaults(s Settings, defaults Settings) Settings {
	out := Settings{}
	maps.Copy(out, defaults)
	maps.Copy(out, s)
	return out
}

// lines splits a block of text into its lines, without the blank lines
// around it.
func lines(text string) []string {
	ls := strings.Split(strings.TrimSpace(strings.ReplaceAll(text, "\r\n", "\n")), "\n")
	for i, l := range ls {
		ls[i] = strings.TrimRight(l, " \t")
	}
	return ls
}
