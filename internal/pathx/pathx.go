// Package pathx holds what several packages need to say about paths.
package pathx

import (
	"errors"
	"os"
)

// Bare drops the operation and path an *os.PathError repeats, for messages
// that already name them: "create /x: permission denied", not
// "create /x: open /x: permission denied".
func Bare(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
