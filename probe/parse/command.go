package parse

import (
	"fmt"
	"regexp"
	"strconv"

	"github.com/perfbisect/perfbisect/probe"
)

// NewCommandStream returns a Stream for any program that prints a line per
// second: each line re matches is a sample, numbered from 1, whose fields
// are the named groups of re (probe.CommandGroups: ops, mib, p95_ms, …) that
// took part in the match. A line re does not match is not an error but the
// program's other output, and is ignored. re is usually from
// probe.CommandPattern, which checks its groups.
func NewCommandStream(re *regexp.Regexp) *Stream {
	c := &command{re: re, fields: make([]probe.Field, re.NumSubexp()+1)}
	for i, name := range re.SubexpNames() {
		if f, ok := probe.CommandGroups[name]; ok && i > 0 {
			c.fields[i] = f
		}
	}
	return &Stream{res: Result{Tool: FormatCommand}, f: c}
}

type command struct {
	re      *regexp.Regexp
	fields  []probe.Field // by group index; 0 for a group that is not a field
	sec     int
	matched bool // a line matched but gave no field
}

func (c *command) line(r *Result, n int, l string) []probe.Sample {
	m := c.re.FindStringSubmatchIndex(l)
	if m == nil {
		return nil
	}
	s := probe.Sample{Sec: c.sec + 1}
	for i, f := range c.fields {
		if f == 0 || m[2*i] < 0 {
			continue // not a field, or an optional group that did not match
		}
		text := l[m[2*i]:m[2*i+1]]
		v, err := strconv.ParseFloat(text, 64)
		if err != nil || !finite(v) || v > 1e18 {
			r.bad(n, l, fmt.Sprintf("group %s: %q is not a number of 0 or more", c.re.SubexpNames()[i], text))
			return nil
		}
		s.Set(f, v)
	}
	if s.Real == 0 {
		c.matched = true
		return nil
	}
	if !r.add(n, l, s) {
		return nil
	}
	c.sec = s.Sec
	return []probe.Sample{s}
}

func (c *command) end(*Result) []probe.Sample { return nil }

func (c *command) finish(r *Result) {
	if c.matched {
		r.note("lines matched the pattern %q without any of its field groups taking part: no sample for them", c.re.String())
	}
}
