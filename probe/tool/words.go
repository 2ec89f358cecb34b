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
		case c == '\'' || c == '"':
			inWord = true
			if i = quoted(rs, i, &cur); i < 0 {
				return nil, fmt.Errorf("a %c that is not closed", c)
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

// quoted copies to cur the text quoted by the quote at rs[open], and
// returns the index of the closing quote, or -1 when there is none.
// Inside "…" a backslash takes the next " \ $ ` as is, and drops with
// itself a newline that follows; inside '…' everything is as is.
func quoted(rs []rune, open int, cur *strings.Builder) int {
	q := rs[open]
	for i := open + 1; i < len(rs); i++ {
		if rs[i] == q {
			return i
		}
		if q == '"' && rs[i] == '\\' && i+1 < len(rs) && strings.ContainsRune("\"\\$`\n", rs[i+1]) {
			i++
			if rs[i] == '\n' {
				continue
			}
		}
		cur.WriteRune(rs[i])
	}
	return -1
}
