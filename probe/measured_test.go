package probe

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// A tool's sample and summary leave out what it did not measure, and read
// back as they were.
func TestJSONLeavesOutWhatWasNotMeasured(t *testing.T) {
	pg := Sample{Sec: 3, OpsPerS: 812.5, AvgMs: 1.23, Errors: 2, Real: FieldOps | FieldAvg | FieldErrors}
	sb := Sample{Sec: 4, OpsPerS: 300, P95Ms: 4.5, Real: FieldOps | FieldP95 | FieldErrors}
	sum := Summary{DurationS: 10, Ops: 8125, OpsPerS: 812.5, AvgMs: 1.2, Real: FieldOps | FieldAvg | FieldErrors, Ended: EndCompleted,
		Workload: DefaultFor(WorkloadPgbench)}
	var buf bytes.Buffer
	enc := NewJSONEncoder(&buf)
	for _, s := range []Sample{pg, sb} {
		if err := enc.Sample(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Summary(sum); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	want := []string{
		`{"type":"sample","sec":3,"ops_per_s":812.5,"avg_ms":1.23,"errors":2,"real":["ops_per_s","avg_ms","errors"]}`,
		`{"type":"sample","sec":4,"ops_per_s":300,"p95_ms":4.5,"errors":0,"real":["ops_per_s","p95_ms","errors"]}`,
	}
	for i, w := range want {
		if lines[i] != w {
			t.Errorf("line %d\n got %s\nwant %s", i+1, lines[i], w)
		}
	}
	for _, k := range []string{`"mib_per_s"`, `"p50_ms"`, `"p95_ms"`, `"p99_ms"`, `"max_ms"`} {
		if strings.Contains(lines[2], k) {
			t.Errorf("pgbench summary has %s: %s", k, lines[2])
		}
	}
	if !strings.Contains(lines[2], `"type":"summary","duration_s":10,"ops":8125,"ops_per_s":812.5,"avg_ms":1.2,"errors":0,"real":`) {
		t.Errorf("summary line %s", lines[2])
	}
	d := NewDecoder(&buf)
	var got []Record
	for d.Scan() {
		got = append(got, d.Record())
	}
	if d.Err() != nil || len(got) != 3 {
		t.Fatalf("%d records, %v", len(got), d.Err())
	}
	if !reflect.DeepEqual(*got[0].Sample, pg) || !reflect.DeepEqual(*got[1].Sample, sb) || !reflect.DeepEqual(*got[2].Summary, sum) {
		t.Errorf("read back %+v %+v %+v", *got[0].Sample, *got[1].Sample, *got[2].Summary)
	}
	// The probe's own sample keeps every field, a 0 included: it measured them.
	b, err := json.Marshal(Sample{Sec: 1})
	if err != nil || string(b) != `{"sec":1,"ops_per_s":0,"mib_per_s":0,"p50_ms":0,"p95_ms":0,"p99_ms":0,"max_ms":0,"errors":0}` {
		t.Errorf("probe sample %s %v", b, err)
	}
	// An unmeasured field that holds a value is still not written.
	b, _ = json.Marshal(Sample{Sec: 1, OpsPerS: 5, P50Ms: 9, Real: FieldOps})
	if string(b) != `{"sec":1,"ops_per_s":5,"real":["ops_per_s"]}` {
		t.Errorf("got %s", b)
	}
}

// A pgbench line of a log written before samples listed what they
// measured has zeros for its percentiles: read with what the workload is
// known to measure, they are not measurements.
func TestAssumedOldLogSample(t *testing.T) {
	var old Sample
	if err := json.Unmarshal([]byte(`{"sec":2,"ops_per_s":800,"mib_per_s":0,"p50_ms":0,"p95_ms":0,"p99_ms":0,"max_ms":0,"avg_ms":1.3,"errors":0}`), &old); err != nil {
		t.Fatal(err)
	}
	if _, ok := old.Value(FieldP50); !ok {
		t.Fatal("the old line reads as the probe's set before Assumed; the test means nothing")
	}
	s := old.Assumed(DefaultFor(WorkloadPgbench).Expected())
	if _, ok := s.Value(FieldP50); ok {
		t.Error("p50 of an old pgbench line read as measured")
	}
	if v, ok := s.Value(FieldAvg); !ok || v != 1.3 {
		t.Errorf("avg %v %v, want 1.3", v, ok)
	}
	probeSample := Sample{Sec: 1, P50Ms: 0.2}
	if got := probeSample.Assumed(ProbeFields); got != probeSample {
		t.Errorf("the probe's sample changed: %+v", got)
	}
	said := Sample{Sec: 1, Real: FieldOps | FieldP95}
	if got := said.Assumed(FieldOps | FieldAvg); got != said {
		t.Errorf("a sample that says what it measured changed: %+v", got)
	}
	if got := old.Assumed(0); got != old {
		t.Errorf("an unknown workload changed the sample: %+v", got)
	}
}
