package probe

// Sample is one second of a workload. Its JSON form is the `sample` event of
// the session log, so `perfbisect probe --json`, the agent's stream and the
// log are read by one decoder.
type Sample struct {
	Sec     int     `json:"sec"`
	OpsPerS float64 `json:"ops_per_s"`
	MiBPerS float64 `json:"mib_per_s"`
	P50Ms   float64 `json:"p50_ms"`
	P95Ms   float64 `json:"p95_ms"`
	P99Ms   float64 `json:"p99_ms"`
	MaxMs   float64 `json:"max_ms"`
	// AvgMs is the mean latency of the second, for tools that give it
	// (pgbench, sysbench's final report); the fsync probe leaves it out.
	AvgMs  float64 `json:"avg_ms,omitempty"`
	Errors int64   `json:"errors"`
	// Real lists the fields the workload really measured; empty means the
	// fsync probe's set (ProbeFields). A field not listed is zero and means
	// nothing.
	Real Fields `json:"real,omitempty"`
}

// Ending says how a run stopped.
type Ending string

const (
	EndCompleted   Ending = "completed"   // ran for its whole duration
	EndInterrupted Ending = "interrupted" // its context was cancelled (Ctrl-C, a quit)
	EndFailed      Ending = "failed"      // an operation failed and the run stopped early
)

// Summary is the whole run. The fsync probe's comes from the merged
// histogram of every operation and a tool's latencies from the tool's own
// final report, never from averaging per-second percentiles; only
// `perfbisect import` of a file without a final report falls back to the
// medians of the per-second values (Tally), and says so.
type Summary struct {
	DurationS float64 `json:"duration_s"`
	Ops       int64   `json:"ops"`
	OpsPerS   float64 `json:"ops_per_s"`
	MiBPerS   float64 `json:"mib_per_s"`
	P50Ms     float64 `json:"p50_ms"`
	P95Ms     float64 `json:"p95_ms"`
	P99Ms     float64 `json:"p99_ms"`
	MaxMs     float64 `json:"max_ms"`
	AvgMs     float64 `json:"avg_ms,omitempty"`
	Errors    int64   `json:"errors"`
	// Real lists the fields measured, as in Sample; empty means ProbeFields.
	Real  Fields `json:"real,omitempty"`
	Ended Ending `json:"ended"`
	// Server is the database the workload ran against, for a database
	// workload: "managed MariaDB 10.11.19-MariaDB-0+deb12u1 (innodb_flush_log_at_trx_commit=0, …)".
	Server string `json:"server,omitempty"`
	// Error is why a run that did not complete stopped, in words for the operator.
	Error    string `json:"error,omitempty"`
	Workload Spec   `json:"workload"`
}
