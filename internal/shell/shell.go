// Package shell writes commands as an operator would type them, for the
// plans, messages and reports that tell someone what to run: each word
// quoted for a POSIX shell only where it needs it.
package shell

import "strings"

// Quote quotes a word for a POSIX shell; a plain word stays as it is.
func Quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./,:=@%+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Join is a program and its arguments as one command line.
func Join(args ...string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = Quote(a)
	}
	return strings.Join(q, " ")
}

// EchoTo is the command that writes value to file, as an operator sets a
// /sys or /proc file by hand: echo mq-deadline > /sys/block/sda/queue/scheduler.
func EchoTo(value, file string) string { return "echo " + Quote(value) + " > " + Quote(file) }
