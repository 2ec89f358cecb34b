package tool

import (
	"fmt"
	"strings"
)

// splitWords splits s into words as a POSIX shell does, without expanding
// anything: blanks separate words, '…' is taken as is, "…" as is but for
// \" \\ \$ \` and a backslash-newline, and outside quotes a backslash takes
// the next character as is.
func splitWords(s string) ([]string, error) {
	var (
		words  []string
		cur    strings.Builder
		inWord bool
	)
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\\':
			inWord = true
			if i+1 == len(rs) {
				return nil, fmt.Errorf("a backslash at the end")
			}
			i++
			if rs[i] != '\n' {
				cur.WriteRune(rs[i])
			}
		case c == '\'':
			inWord = true
			closed := false
			for i++; i < len(rs); i++ {
				if rs[i] == '\'' {
					closed = true
					break
				}
				cur.WriteRune(rs[i])
			}
			if !closed {
				return nil, fmt.Errorf("a ' that is not closed")
			}
		case c == '"':
			inWord = true
			closed := false
			for i++; i < len(rs); i++ {
				if rs[i] == '"' {
					closed = true
					break
				}
				if rs[i] == '\\' && i+1 < len(rs) && strings.ContainsRune("\"\\$`\n", rs[i+1]) {
					i++
					if rs[i] == '\n' {
						continue
					}
				}
				cur.WriteRune(rs[i])
			}
			if !closed {
				return nil, fmt.Errorf(`a " that is not closed`)
			}
		default:
			inWord = true
			cur.WriteRune(c)
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
