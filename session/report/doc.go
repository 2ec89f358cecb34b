// Package report turns a session log into a report that can be pasted into
// an incident review: Markdown, one self-contained HTML page (inline SVG
// charts, no script, readable printed), or JSON, written beside the log or
// anywhere (WriteBeside, WriteFile). Comparison renders two runs as the
// multiplier table of `perfbisect compare`.
//
// Build digests the events (and the reader's bad lines: a log cut short
// still renders, and says where it ends). Markdown, HTML and JSON render the
// same content, which outline lays out once: the conclusion first, the
// host, the reference, the timeline of steps with their knobs, verdicts,
// decisions and charts, the results table (step | reference median | step
// median | multiplier | outcome), the operator's notes, errors and reverts
// (a failed revert stands out), and the command to redo the walk.
//
// # JSON schema perfbisect.report/v1
//
// One object; every field below is always present (null or empty when the
// log has nothing for it). Times are RFC 3339; latencies are milliseconds.
//
//	schema       "perfbisect.report/v1"
//	session      the session event:
//	  version      perfbisect's version that recorded the log
//	  playbook     the playbook's name
//	  source       where it came from: a file, or "embedded:NAME"
//	  workload     the workload every step ran (probe.Spec: workload, dir, bs,
//	               file_size, sync, prealloc, threads, duration)
//	  host         the host the walk ran on
//	  dry_run      true when nothing was changed or measured
//	  metric       the per-second metric the verdicts judged ("p50_ms", ...)
//	  started      the time of the first event, or null
//	  finished     the time of the last event, or null
//	host         the host facts (host.Facts: hostname, kernel, cpu, cpus,
//	             memory_bytes, root, data_dir, mount_point, filesystem,
//	             mount_options, device, scheduler, rotational, lab), or null
//	reference    the known-good run:
//	  file         its file ("" when there is none: the reproduce step is
//	               then the baseline)
//	  seconds      how many per-second samples of it the log holds
//	  median       the median of metric over them after the playbook's
//	               warm-up (as the verdicts take it), or null
//	steps        each step in the order it started:
//	  id, title, hypothesis, reproduce (true for the step that reproduces
//	               the regression)
//	  knobs        each knob: knob (name), settings (the playbook's with:),
//	               text ("tmpfs size=1g"), actions: each knob event in order,
//	               {action: planned|applied|reverted|revert_failed|unavailable,
//	               time, do, undo (exact commands), before, after, error}
//	  state        where it ended: pending, running (never ended), persists,
//	               gone, regressed, same, measured, inconclusive, skipped,
//	               unavailable, failed, dry-run
//	  reason       why, when the state needs one
//	  verdicts     each verdict: against (reference|regression), metric,
//	               base_median, step_median, ratio (step/base, the
//	               "multiplier"), ci_low, ci_high (interval on the ratio),
//	               confidence (its actual coverage; 0: no interval), p
//	               (Mann-Whitney U), n_base, n_step, outcome (regressed, same,
//	               improved, inconclusive), why (one readable sentence)
//	  decision     {state, meaning, next (the next step's id), conclusion}
//	               or null
//	  seconds      how many per-second samples the step measured
//	  duration_s   the step's wall time, from its step_end
//	  median       the median of metric over its samples after the
//	               warm-up, or null
//	  summary      the whole-run summary (probe.Summary) or null
//	  extended_s   seconds the operator added to the step (x), or 0
//	notes        the operator's notes: {time, step, text}
//	errors       errors, and failed reverts: {time, step, message, action,
//	             revert_failed}
//	conclusion   the playbook's conclusion, or ""
//	ended        how the session ended: concluded, quit, interrupted, failed;
//	             "" when the log has no session_end
//	cut_short    "" for a whole log, else "the log ends at line N, cut
//	             short; the report covers what it holds"
//	bad_lines    lines that could not be read: {line, torn, error}
//	commands     the commands that redo the walk
//	             ("perfbisect run --no-tui --playbook NAME --dir DIR
//	             [--reference FILE]")
//
// Fields may be added in v1; none is removed or changes meaning.
//
// The HTML page puts each step's charts in an element with id
// "chart-STEPID": per-second throughput and p99 with the reference and the
// regression (the reproduce step) overlaid, and a histogram of the step's
// per-second p50 values as its latency distribution. A series longer than
// 600 points is drawn by the minimum and maximum of each of 300 buckets.
package report
