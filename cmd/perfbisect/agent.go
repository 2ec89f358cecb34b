package main

import (
	"errors"
	"io"

	"github.com/perfbisect/perfbisect/probe/host"
	"github.com/spf13/cobra"
)

// newAgentCmd is the child that runs workloads for a host (locally, or at
// the far end of ssh): one JSON request on stdin, JSON Lines on stdout.
func newAgentCmd(stdin io.Reader, stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:    "agent",
		Short:  "Run workloads for a perfbisect session (JSON Lines on stdin and stdout)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			// It always has something to put away (a run, a server, its
			// files): a second signal must not cut that short.
			guarded.Store(true)
			err := host.ServeAgent(c.Context(), stdin, stdout)
			switch {
			case errors.Is(err, host.ErrAgentInterrupted):
				return errInterrupted
			case err != nil:
				return failure(err)
			}
			return nil
		},
	}
}
