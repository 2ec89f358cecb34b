package playbook

import "fmt"

// Error is a problem in a playbook, placed the way a compiler places one:
// "local-disk.yaml:12:11: step "tmpfs": gone: no step "fsynk" (steps: ...)".
// Every error of Parse is an *Error; Line and Column are 1-based and point
// at the node at fault (1:1 when the whole file is at fault).
type Error struct {
	File   string
	Line   int
	Column int
	Msg    string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
}
