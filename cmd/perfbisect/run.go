package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// Exit codes, mapped from errors in one place (exitCode).
const (
	exitOK          = 0
	exitFailure     = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// exitError carries the exit code of an error from a command's work.
// Errors without one come from cobra's parsing and are usage errors.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func failure(err error) error    { return &exitError{exitFailure, err} }
func usageError(err error) error { return &exitError{exitUsage, err} }

var errInterrupted = &exitError{exitInterrupted, errors.New("interrupted")}

// run is the whole program: main only wires it to the process.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	root := newRootCmd(stdout, stderr)
	root.SetArgs(args)
	return root.ExecuteContext(ctx)
}

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "perfbisect",
		Short: "Bisect a write-latency regression of a host's storage and database stack",
		Long: `perfbisect walks you through bisecting a storage or database write regression:
each step changes one thing on the host, measures it second by second, and
says whether the regression persists or is gone.`,
		Version:       version,
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return runSetup(c.Context(), stdout, stderr)
		},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &exitError{exitUsage, fmt.Errorf("%v (see '%s --help')", err, c.CommandPath())}
	})
	root.AddCommand(
		newProbeCmd(stdout, stderr),
		newRunCmd(os.Stdin, stdout, stderr),
		newPlaybooksCmd(stdout),
		newCompareCmd(stdout, stderr),
		newReplayCmd(stdout, stderr),
		newReportCmd(stdout, stderr),
		newImportCmd(stdout, stderr),
		newLabCmd(os.Stdin, stdout, stderr),
		newRecoverCmd(os.Stdin, stdout, stderr),
		newAgentCmd(os.Stdin, stdout),
	)
	return root
}

// exitCode prints err for the operator and returns the process's exit code.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	code := exitUsage
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
	}
	if code == exitOK { // a dry run, say: nothing more to say
		return exitOK
	}
	msg := err.Error()
	if code == exitUsage && !strings.Contains(msg, "--help") {
		msg += " (see 'perfbisect --help')"
	}
	fmt.Fprintf(stderr, "perfbisect: %s\n", msg)
	return code
}
