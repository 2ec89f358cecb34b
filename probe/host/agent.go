package host

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/tool"
)

// Request is what the parent sends an agent on its stdin, one JSON line.
type Request struct {
	Type     string     `json:"type"` // "run"
	Workload probe.Spec `json:"workload"`
}

// ErrAgentInterrupted is returned by ServeAgent when the run was stopped
// before its end (a closed stdin or a cancelled context).
var ErrAgentInterrupted = errors.New("interrupted")

// ServeAgent is `perfbisect agent`: it reads one run request from stdin,
// runs the workload and writes its samples and summary to stdout as JSON
// Lines, one line per second, flushed as they come. Closing stdin stops the
// run early (the summary still comes), so a parent that dies takes its agent
// with it. A failure before measuring is returned (the command prints it on
// stderr and exits 1).
func ServeAgent(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	// A parent that died leaves our stdout a broken pipe: a write must fail
	// (EPIPE) rather than kill us by SIGPIPE before the workload, its
	// server and its files are put away. A signal we catch is reset to its
	// default in the programs we start, where an ignored one would stay
	// ignored: a command's 'yes | head' must still end yes.
	sigpipe := make(chan os.Signal, 1)
	signal.Notify(sigpipe, syscall.SIGPIPE)
	defer signal.Stop(sigpipe)
	in := bufio.NewReader(stdin)
	line, err := in.ReadBytes('\n')
	if err != nil && (err != io.EOF || len(line) == 0) {
		return fmt.Errorf("agent: read the request on stdin: %v", err)
	}
	var req Request
	if err := json.Unmarshal(line, &req); err != nil {
		return fmt.Errorf("agent: bad request %q: %v", line, err)
	}
	if req.Type != "run" {
		return fmt.Errorf("agent: unknown request type %q (want run)", req.Type)
	}
	w, err := tool.New(req.Workload)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		io.Copy(io.Discard, in) // returns when the parent closes our stdin
		cancel()
	}()
	samples, err := w.Run(ctx)
	if err != nil {
		return err
	}
	enc := probe.NewJSONEncoder(stdout)
	var werr error
	for s := range samples {
		if err := enc.Sample(s); err != nil && werr == nil {
			werr = err
		}
	}
	sum := w.Result()
	if err := enc.Summary(sum); err != nil && werr == nil {
		werr = err
	}
	if werr != nil {
		return fmt.Errorf("agent: write to the parent: %v", werr)
	}
	if sum.Ended == probe.EndInterrupted {
		return ErrAgentInterrupted
	}
	return nil
}
