package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/knob"
	"github.com/perfbisect/perfbisect/session/verdict"
)

// everyEvent has one event of each type, with every field set.
func everyEvent() []Event {
	at := time.Date(2026, 10, 31, 23, 59, 0, 0, time.UTC)
	spec := probe.DefaultSpec()
	spec.Dir = "/var/lib/mysql"
	rot := false
	sum := probe.Summary{DurationS: 20, Ops: 2000, OpsPerS: 100, MiBPerS: 0.39, P50Ms: 9.8, P95Ms: 12, P99Ms: 15, MaxMs: 40, Ended: probe.EndCompleted, Workload: spec}
	ch := knob.Change{Knob: "tmpfs", Settings: knob.Settings{"size": "1g"}, Do: []string{"mount -t tmpfs"}, Undo: []string{"umount"}, Before: "ext4", After: "tmpfs"}
	data := []any{
		&SessionStart{Version: "v1", Playbook: "local-disk", Source: "embedded:local-disk", YAML: "name: x\n", Workload: spec, Reference: "ref.jsonl", Host: "db-1", DryRun: true,
			Metric: "p99_ms", Threshold: 0.2, WarmupS: 3, Steps: []PlannedStep{{ID: "tmpfs", Title: "tmpfs", Hypothesis: "the disk", Reproduce: true, Knobs: []knob.Use{{Knob: "tmpfs", With: knob.Settings{"size": "1g"}}}}}},
		&HostFacts{Hostname: "db-1", Kernel: "6.1", CPU: "Xeon", CPUs: 4, MemoryBytes: 1 << 34, Root: true, DataDir: "/var/lib/mysql", MountPoint: "/", Filesystem: "ext4", MountOptions: "rw,relatime", Device: "nvme0n1", Scheduler: "none", Rotational: &rot},
		&StepStart{Title: "tmpfs", Hypothesis: "the disk", Reproduce: true, Knobs: []knob.Use{{Knob: "tmpfs", With: knob.Settings{"size": "1g"}}}, DurationS: 20},
		&KnobEvent{Action: KnobRevertFailed, Change: ch, Error: "busy"},
		&probe.Sample{Sec: 3, OpsPerS: 101.5, MiBPerS: 0.396, P50Ms: 9.7, P95Ms: 11, P99Ms: 14, MaxMs: 30, Errors: 1},
		&Verdict{Against: AgainstReference, Verdict: verdict.Verdict{Metric: "p50_ms", BaseMedian: 1, StepMedian: 2, Ratio: 2, CILow: 1.8, CIHigh: 2.2, Confidence: 0.95, P: 0.001, NBase: 8, NStep: 8, Outcome: verdict.Regressed, Why: "2x"}},
		&StepEnd{State: StateGone, Reason: "fast", Summary: &sum, DurationS: 20.5},
		&Extend{BySeconds: 10, PlannedS: 30, MaxS: 70},
		&Elsewhere{File: "bare.txt", Format: "sysbench", Seconds: 60, Differs: "workload sysbench, not fsync"},
		&Decision{Meaning: "the disk", Next: "fsync"},
		&Decision{Conclusion: "not the disk"},
		&Note{Text: "rebooted db-2 at 03:10"},
		&ErrorEvent{Message: "agent died", Action: "step ended"},
		&SessionEnd{Ended: EndInterrupted, Conclusion: "x", Error: "ctrl-c"},
		&sum,
	}
	var evs []Event
	for i, d := range data {
		evs = append(evs, NewEvent(at.Add(time.Duration(i)*time.Second), "tmpfs", d))
	}
	return evs
}

func writeLog(t *testing.T, evs []Event) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "session.jsonl")
	if err := WriteLogFile(path, evs); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLogRoundTrip(t *testing.T) {
	want := everyEvent()
	got, bad, err := ReadLogFile(writeLog(t, want))
	if err != nil || len(bad) != 0 {
		t.Fatalf("read: %v %v", err, bad)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

// TestEveryPayloadHasItsType holds the one table of payloads to both
// directions, and the round trip above to every type in it.
func TestEveryPayloadHasItsType(t *testing.T) {
	seen := map[Type]bool{}
	for _, e := range everyEvent() {
		seen[e.Type] = true
	}
	for _, p := range payloads {
		if e := NewEvent(time.Time{}, "", p.new()); e.Type != p.typ {
			t.Errorf("NewEvent of a %T: type %q, want %q", p.new(), e.Type, p.typ)
		}
		if got, want := reflect.TypeOf(newPayload(p.typ)), reflect.TypeOf(p.new()); got != want {
			t.Errorf("payload of %q: %v, want %v", p.typ, got, want)
		}
		if !seen[p.typ] {
			t.Errorf("everyEvent has no %s event: the round trip does not cover it", p.typ)
		}
	}
}

func TestSampleEventReadsLikeProbeOutput(t *testing.T) {
	s := probe.Sample{Sec: 1, OpsPerS: 5, P50Ms: 0.2, Errors: 0}
	b, err := json.Marshal(Event{Type: TypeSample, Time: time.Unix(0, 0).UTC(), Step: "reproduce", Data: &s})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte(`{"type":"sample","time":"1970-01-01T00:00:00Z","step":"reproduce","sec":1,"ops_per_s":5,`)) {
		t.Errorf("sample event %s", b)
	}
	d := probe.NewDecoder(bytes.NewReader(append(b, '\n')))
	if !d.Scan() || d.Record().Sample == nil || *d.Record().Sample != s {
		t.Errorf("probe's decoder does not read the sample event %s: %v", b, d.Err())
	}
}

func TestLogNeverOverwrites(t *testing.T) {
	path := writeLog(t, everyEvent()[:1])
	if _, err := CreateLog(path); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("CreateLog on an existing log: %v", err)
	}
}

func TestLogCutShortKeepsCompleteLines(t *testing.T) {
	evs := everyEvent()
	full, err := os.ReadFile(writeLog(t, evs))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(full, []byte("\n"))
	// Cut in the middle of every line in turn, as a crash would.
	for i := range evs {
		upto := len(bytes.Join(lines[:i], nil))
		cut := full[:upto+len(lines[i])/2]
		r := NewReader(bytes.NewReader(cut))
		n := 0
		for r.Scan() {
			n++
		}
		if n != i {
			t.Errorf("cut in line %d: read %d events, want the %d complete ones", i+1, n, i)
		}
		bad := r.BadLines()
		if len(bad) != 1 || !bad[0].Torn || bad[0].Line != i+1 {
			t.Errorf("cut in line %d: bad lines %v, want the torn line %d", i+1, bad, i+1)
		}
	}
}

func TestLogBadMiddleLineIsReportedAndSkipped(t *testing.T) {
	in := `{"type":"note","time":"2026-10-31T00:00:00Z","text":"a"}
{"type":"note","time":
{"no":"type"}
{"type":"note","time":"2026-10-31T00:00:01Z","text":"b"}
`
	r := NewReader(strings.NewReader(in))
	var texts []string
	for r.Scan() {
		texts = append(texts, r.Event().Data.(*Note).Text)
	}
	if strings.Join(texts, ",") != "a,b" {
		t.Errorf("read %v", texts)
	}
	bad := r.BadLines()
	if len(bad) != 2 || bad[0].Line != 2 || bad[1].Line != 3 || bad[0].Torn {
		t.Errorf("bad lines %v", bad)
	}
	var se *json.SyntaxError
	if !errors.As(bad[0], &se) {
		t.Errorf("line 2's error %v is not the JSON syntax error", bad[0])
	}
}

func TestUnknownEventTypeKeepsItsHeader(t *testing.T) {
	r := NewReader(strings.NewReader(`{"type":"lab_status","time":"2026-10-31T00:00:00Z","step":"x","iops":3000}` + "\n"))
	if !r.Scan() || r.Event().Type != "lab_status" || r.Event().Data != nil || r.Event().Step != "x" {
		t.Errorf("newer event: %+v", r.Event())
	}
}

func FuzzReader(f *testing.F) {
	var buf bytes.Buffer
	for _, e := range everyEvent() {
		b, _ := json.Marshal(e)
		buf.Write(append(b, '\n'))
	}
	f.Add(buf.Bytes())
	f.Add([]byte(`{"type":"sample","sec":1}` + "\n" + `{"type":"summ`))
	f.Add([]byte("\n\n{}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data))
		n := 0
		for r.Scan() {
			n++
			e := r.Event()
			if e.Type == "" {
				t.Fatalf("event without a type from %q", data)
			}
			if p := newPayload(e.Type); p != nil && e.Data == nil {
				t.Fatalf("%s event without its payload", e.Type)
			}
		}
		if r.Err() != nil {
			t.Fatalf("a reader of memory failed: %v", r.Err())
		}
		lines := bytes.Count(data, []byte("\n"))
		if !bytes.HasSuffix(data, []byte("\n")) && len(data) > 0 {
			lines++
		}
		if n+len(r.BadLines()) > lines {
			t.Fatalf("%d events and %d bad lines from %d lines", n, len(r.BadLines()), lines)
		}
	})
}

// A reference can be a tool's saved output: its samples carry the fields
// it measured; asking it for a step is an error that says why.
func TestLoadRunSavedToolOutput(t *testing.T) {
	const file = "../probe/parse/testdata/sysbench-1.0.20-oltp_insert-disk.txt"
	run, err := LoadRun(file, "")
	if err != nil {
		t.Fatal(err)
	}
	if run.Format != "sysbench" || len(run.Samples) != 11 || run.Samples[0].Real != probe.FieldOps|probe.FieldP95|probe.FieldErrors {
		t.Errorf("got format %q, %d samples, first %+v; want 11 sysbench seconds with ops, p95, errors", run.Format, len(run.Samples), run.Samples[0])
	}
	if _, err := LoadRun(file, "tmpfs"); err == nil || !strings.Contains(err.Error(), "has no steps") {
		t.Errorf("a step of saved output: err %v, want it to say there are no steps", err)
	}
	empty := filepath.Join(t.TempDir(), "empty.jsonl")
	os.WriteFile(empty, []byte("{\"type\":\"note\"}\n"), 0o600)
	if _, err := LoadRun(empty, ""); err == nil || !strings.Contains(err.Error(), "saved sysbench, pgbench or fio output") {
		t.Errorf("no samples: err %v, want it to say what is accepted", err)
	}
}

// TestLoadRunFioLatLog: a fio latency log as a reference is read as
// latencies (its name says so, as fio names it), not as operations per
// second.
func TestLoadRunFioLatLog(t *testing.T) {
	run, err := LoadRun("../probe/parse/testdata/fio-3.33-etcd_lat.1.log", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Samples) == 0 {
		t.Fatal("no samples")
	}
	for _, s := range run.Samples {
		if s.Measured().Has(probe.FieldOps) || !s.Measured().Has(probe.FieldAvg) || s.AvgMs <= 0 || s.AvgMs > 1 {
			t.Fatalf("sample %+v: want an average latency in ms (the log's ns / 1e6) and no ops/s", s)
		}
	}
}

// An event that cannot be encoded (a NaN) is left out, the log goes on,
// and Close says what was lost, so a walk does not end "ok" on a log that
// misses an event.
func TestLogLeavesOutAnEventItCannotEncode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "session.jsonl")
	w, err := CreateLog(path)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	if err := w.Write(NewEvent(at, "s", &probe.Sample{Sec: 1, P50Ms: math.NaN()})); err == nil {
		t.Error("a NaN sample was written")
	}
	if err := w.Write(NewEvent(at, "s", &Note{Text: "after"})); err != nil {
		t.Errorf("the next event: %v, want it written", err)
	}
	if err := w.Close(); err == nil || !strings.Contains(err.Error(), "encode sample event") {
		t.Errorf("Close = %v, want it to say the sample was left out", err)
	}
	evs, bad, err := ReadLogFile(path)
	if err != nil || len(bad) != 0 || len(evs) != 1 || evs[0].Type != TypeNote {
		t.Errorf("log holds %d events (%v, %v), want the note alone", len(evs), bad, err)
	}
}
