package probe

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/perfbisect/perfbisect/internal/jsonl"
)

func jsonlTestSummary() Summary {
	spec := DefaultSpec()
	spec.Dir = "/mnt/nvme0"
	spec.Threads = 4
	return Summary{
		DurationS: 10.002,
		Ops:       51234,
		OpsPerS:   5122.37,
		MiBPerS:   20.009,
		P50Ms:     0.1843,
		P95Ms:     0.3121,
		P99Ms:     1.0004,
		MaxMs:     17.2345,
		Errors:    2,
		Ended:     EndFailed,
		Error:     "write /mnt/nvme0/perfbisect-probe-0.dat: no space left on device",
		Workload:  spec,
	}
}

// jsonlDecodeAll reads every record and returns them with the decoder's errors.
func jsonlDecodeAll(t *testing.T, r io.Reader) ([]Record, *Decoder) {
	t.Helper()
	d := NewDecoder(r)
	var recs []Record
	for d.Scan() {
		recs = append(recs, d.Record())
	}
	return recs, d
}

func TestJSONRoundTrip(t *testing.T) {
	samples := []Sample{
		{Sec: 1, OpsPerS: 5120.5, MiBPerS: 20.002, P50Ms: 0.1843, P95Ms: 0.3121, P99Ms: 0.9871, MaxMs: 3.2, Errors: 0},
		{Sec: 2, OpsPerS: 0, MiBPerS: 0, P50Ms: 0, P95Ms: 0, P99Ms: 0, MaxMs: 0, Errors: 0},
		{Sec: 3, OpsPerS: 1e-9, MiBPerS: 123456.789, P50Ms: 600000.0001, P95Ms: 1, P99Ms: 2, MaxMs: 1234567.8901, Errors: 7},
	}
	sum := jsonlTestSummary()

	var buf bytes.Buffer
	enc := NewJSONEncoder(&buf)
	for _, s := range samples {
		if err := enc.Sample(s); err != nil {
			t.Fatalf("Sample(%+v): %v", s, err)
		}
	}
	if err := enc.Summary(sum); err != nil {
		t.Fatalf("Summary: %v", err)
	}
	if n := strings.Count(buf.String(), "\n"); n != len(samples)+1 {
		t.Errorf("encoder wrote %d lines, want %d:\n%s", n, len(samples)+1, buf.String())
	}

	recs, d := jsonlDecodeAll(t, &buf)
	if err := d.Err(); err != nil {
		t.Fatalf("Err() = %v", err)
	}
	if len(recs) != len(samples)+1 {
		t.Fatalf("decoded %d records, want %d", len(recs), len(samples)+1)
	}
	for i, s := range samples {
		r := recs[i]
		if r.Type != "sample" || r.Sample == nil || r.Summary != nil {
			t.Fatalf("record %d = %+v, want a sample", i, r)
		}
		if !reflect.DeepEqual(*r.Sample, s) {
			t.Errorf("sample %d:\n got %+v\nwant %+v", i, *r.Sample, s)
		}
	}
	last := recs[len(recs)-1]
	if last.Type != "summary" || last.Summary == nil || last.Sample != nil {
		t.Fatalf("last record = %+v, want the summary", last)
	}
	if !reflect.DeepEqual(*last.Summary, sum) {
		t.Errorf("summary:\n got %+v\nwant %+v", *last.Summary, sum)
	}
}

func TestJSONSampleLineForm(t *testing.T) {
	var buf bytes.Buffer
	s := Sample{Sec: 1, OpsPerS: 5120.5, MiBPerS: 20.002, P50Ms: 0.1843, P95Ms: 0.3121, P99Ms: 0.9871, MaxMs: 3.2, Errors: 0}
	if err := NewJSONEncoder(&buf).Sample(s); err != nil {
		t.Fatal(err)
	}
	const want = `{"type":"sample","sec":1,"ops_per_s":5120.5,"mib_per_s":20.002,"p50_ms":0.1843,"p95_ms":0.3121,"p99_ms":0.9871,"max_ms":3.2,"errors":0}` + "\n"
	if buf.String() != want {
		t.Errorf("sample line\n got %s\nwant %s", buf.String(), want)
	}
}

func TestJSONSummaryLineForm(t *testing.T) {
	var buf bytes.Buffer
	sum := Summary{DurationS: 10, Ops: 100, OpsPerS: 10, MiBPerS: 0.039, P50Ms: 1, P95Ms: 2, P99Ms: 3, MaxMs: 4, Ended: EndCompleted, Workload: DefaultSpec()}
	if err := NewJSONEncoder(&buf).Summary(sum); err != nil {
		t.Fatal(err)
	}
	// A completed run has no "error" key.
	const want = `{"type":"summary","duration_s":10,"ops":100,"ops_per_s":10,"mib_per_s":0.039,"p50_ms":1,"p95_ms":2,"p99_ms":3,"max_ms":4,"errors":0,"ended":"completed",` +
		`"workload":{"workload":"fsync","bs":"4KiB","file_size":"64MiB","sync":"fdatasync","prealloc":"fallocate","threads":1,"duration":"10s"}}` + "\n"
	if buf.String() != want {
		t.Errorf("summary line\n got %s\nwant %s", buf.String(), want)
	}
}

func TestJSONEncoderRejectsNaNWithoutWriting(t *testing.T) {
	var buf bytes.Buffer
	enc := NewJSONEncoder(&buf)
	if err := enc.Sample(Sample{Sec: 1, P99Ms: math.NaN()}); err == nil {
		t.Errorf("Sample with a NaN gave no error")
	}
	if err := enc.Summary(Summary{OpsPerS: math.Inf(1)}); err == nil {
		t.Errorf("Summary with an Inf gave no error")
	}
	if buf.Len() != 0 {
		t.Errorf("a failed encode wrote %q; the stream must stay whole lines", buf.String())
	}
}

type jsonlFailWriter struct{ err error }

func (w jsonlFailWriter) Write([]byte) (int, error) { return 0, w.err }

func TestJSONEncoderReportsWriteError(t *testing.T) {
	want := errors.New("disk gone")
	enc := NewJSONEncoder(jsonlFailWriter{want})
	if err := enc.Sample(Sample{Sec: 1}); !errors.Is(err, want) {
		t.Errorf("Sample on a failing writer = %v, want %v", err, want)
	}
	if err := enc.Summary(Summary{}); !errors.Is(err, want) {
		t.Errorf("Summary on a failing writer = %v, want %v", err, want)
	}
}

func TestDecoderSkipsOtherTypesAndBlankLines(t *testing.T) {
	in := `{"type":"note","text":"bisect step 3"}` + "\n" +
		"\n" +
		"   \t \n" +
		`{"type":"sample","sec":1,"ops_per_s":10,"mib_per_s":0.039,"p50_ms":1,"p95_ms":2,"p99_ms":3,"max_ms":4,"errors":0}` + "\r\n" +
		`{"type":"step","id":7,"sec":99}` + "\n" +
		`{"sec":5}` + "\n" +
		`null` + "\n" +
		"\n" +
		`  {"type":"sample","sec":2,"ops_per_s":20}  ` + "\n" +
		`{"type":"done"}` + "\n"
	recs, d := jsonlDecodeAll(t, strings.NewReader(in))
	if err := d.Err(); err != nil {
		t.Fatalf("Err() = %v", err)
	}
	want := []Record{
		{Type: "sample", Sample: &Sample{Sec: 1, OpsPerS: 10, MiBPerS: 0.039, P50Ms: 1, P95Ms: 2, P99Ms: 3, MaxMs: 4}},
		{Type: "sample", Sample: &Sample{Sec: 2, OpsPerS: 20}},
	}
	if !reflect.DeepEqual(recs, want) {
		t.Errorf("records:\n got %s\nwant %s", jsonlShow(recs), jsonlShow(want))
	}
}

func TestDecoderMalformedMiddleLine(t *testing.T) {
	in := `{"type":"sample","sec":1}` + "\n" +
		`{"type":"note"}` + "\n" +
		`{"type":"sample","sec":2,` + "\n" + // line 3: broken
		`{"type":"sample","sec":3}` + "\n" +
		`{"type":"sample","sec":"four"}` + "\n" + // line 5: wrong type of value
		`{"type":"summary","ops":9,"ended":"completed","workload":{"bs":"4q"}}` + "\n" + // line 6: bad size
		`{"type":"summary","ops":10,"ended":"completed"}` + "\n"
	recs, d := jsonlDecodeAll(t, strings.NewReader(in))

	var secs []int
	var sums []int64
	for _, r := range recs {
		switch {
		case r.Sample != nil:
			secs = append(secs, r.Sample.Sec)
		case r.Summary != nil:
			sums = append(sums, r.Summary.Ops)
		}
	}
	if !reflect.DeepEqual(secs, []int{1, 3}) || !reflect.DeepEqual(sums, []int64{10}) {
		t.Errorf("kept samples %v and summaries %v, want [1 3] and [10]: the scan must go on past bad lines", secs, sums)
	}

	err := d.Err()
	var se *jsonl.SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("Err() = %v (%T), want a *jsonl.SyntaxError", err, err)
	}
	if se.Line != 3 || se.Torn {
		t.Errorf("first SyntaxError = line %d torn %v, want line 3 not torn", se.Line, se.Torn)
	}
	if !strings.HasPrefix(err.Error(), "line 3: ") || !strings.Contains(err.Error(), "and 2 more unreadable lines") {
		t.Errorf("Err() = %q, want it to start at line 3 and count 2 more", err)
	}
	var jsonErr *json.SyntaxError
	if !errors.As(err, &jsonErr) {
		t.Errorf("Err() = %v does not unwrap to the *json.SyntaxError of line 3", err)
	}

	var lines []int
	for _, se := range d.BadLines() {
		if se.Torn {
			t.Errorf("line %d reported torn; it ended with a newline", se.Line)
		}
		lines = append(lines, se.Line)
	}
	if !reflect.DeepEqual(lines, []int{3, 5, 6}) {
		t.Errorf("BadLines() at lines %v, want [3 5 6]", lines)
	}
}

// A lone bad line is Err itself, not wrapped in a count of one, so a caller
// can take its line number without errors.As.
func TestDecoderOneErrorIsItself(t *testing.T) {
	d := NewDecoder(strings.NewReader("{\n" + `{"type":"sample","sec":2}` + "\n"))
	n := 0
	for d.Scan() {
		n++
	}
	if n != 1 {
		t.Errorf("decoded %d records, want 1", n)
	}
	se, ok := d.Err().(*jsonl.SyntaxError)
	if !ok {
		t.Fatalf("Err() = %v (%T), want the *jsonl.SyntaxError itself", d.Err(), d.Err())
	}
	if se.Line != 1 || se.Torn || se.Err == nil {
		t.Errorf("SyntaxError = %+v, want line 1, not torn, with a cause", se)
	}
	if !strings.HasPrefix(se.Error(), "line 1: ") {
		t.Errorf("Error() = %q, want it to start with the line", se.Error())
	}
}

func TestDecoderTornLastLine(t *testing.T) {
	in := `{"type":"sample","sec":1}` + "\n" +
		`{"type":"sample","sec":2}` + "\n" +
		`{"type":"sample","sec":3,"ops_per_s":12` // the writer died here
	recs, d := jsonlDecodeAll(t, strings.NewReader(in))
	if len(recs) != 2 || recs[0].Sample.Sec != 1 || recs[1].Sample.Sec != 2 {
		t.Errorf("records %s, want seconds 1 and 2", jsonlShow(recs))
	}
	var se *jsonl.SyntaxError
	if !errors.As(d.Err(), &se) {
		t.Fatalf("Err() = %v, want a *jsonl.SyntaxError", d.Err())
	}
	if se.Line != 3 || !se.Torn {
		t.Errorf("SyntaxError line %d torn %v, want line 3 torn", se.Line, se.Torn)
	}
	if !strings.Contains(se.Error(), "line 3") || !strings.Contains(se.Error(), "cut short") {
		t.Errorf("Error() = %q, want it to say line 3 was cut short", se.Error())
	}
	if se.Unwrap() == nil {
		t.Errorf("a torn line's SyntaxError has no cause")
	}
	if d.Scan() {
		t.Errorf("Scan after the end returned true")
	}
}

func TestDecoderValidLastLineWithoutNewline(t *testing.T) {
	in := `{"type":"sample","sec":1}` + "\n" + `{"type":"summary","ops":5,"ended":"interrupted"}`
	recs, d := jsonlDecodeAll(t, strings.NewReader(in))
	if err := d.Err(); err != nil {
		t.Fatalf("Err() = %v", err)
	}
	want := []Record{
		{Type: "sample", Sample: &Sample{Sec: 1}},
		{Type: "summary", Summary: &Summary{Ops: 5, Ended: EndInterrupted}},
	}
	if !reflect.DeepEqual(recs, want) {
		t.Errorf("records:\n got %s\nwant %s", jsonlShow(recs), jsonlShow(want))
	}
}

// A read error comes before the bad lines read until then: the stream was
// not read to its end, which matters more than a line that did not parse.
func TestDecoderReadError(t *testing.T) {
	want := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader(`{"type":"sample","sec":1}`+"\n"+"{\n"+`{"type":"sample","sec":2`), iotest.ErrReader(want))
	recs, d := jsonlDecodeAll(t, r)
	if len(recs) != 1 || recs[0].Sample.Sec != 1 {
		t.Errorf("records %s, want only second 1", jsonlShow(recs))
	}
	if err := d.Err(); err != want {
		t.Errorf("Err() = %v, want the read error %v itself", err, want)
	}
	if bad := d.BadLines(); len(bad) != 1 || bad[0].Line != 2 {
		t.Errorf("BadLines() = %v, want line 2, the one bad line before the read error", bad)
	}
	if d.Scan() {
		t.Errorf("Scan after a read error returned true")
	}
}

func TestDecoderRecordsAreIndependent(t *testing.T) {
	d := NewDecoder(strings.NewReader(`{"type":"sample","sec":1}` + "\n" + `{"type":"sample","sec":2}` + "\n"))
	if !d.Scan() {
		t.Fatal("no first record")
	}
	first := d.Record()
	if !d.Scan() {
		t.Fatal("no second record")
	}
	if first.Sample.Sec != 1 || d.Record().Sample.Sec != 2 {
		t.Errorf("the first record now says second %d: records share memory", first.Sample.Sec)
	}
}

// jsonlRandSample makes a sample of the kind a Meter produces: rates rounded
// as Cut rounds them, latencies to 0.1 µs.
func jsonlRandSample(r *rand.Rand, sec int) Sample {
	lat := func() float64 { return round(r.ExpFloat64()*float64(r.IntN(5000)+1), 4) }
	return Sample{
		Sec:     sec,
		OpsPerS: round(r.Float64()*1e6, 2),
		MiBPerS: round(r.Float64()*1e4, 3),
		P50Ms:   lat(),
		P95Ms:   lat(),
		P99Ms:   lat(),
		MaxMs:   lat(),
		Errors:  r.Int64N(3) * r.Int64N(1000),
	}
}

// jsonlRandFloat covers values the meter never makes, to test the encoding
// itself: tiny, huge, negative and full-precision numbers.
func jsonlRandFloat(r *rand.Rand) float64 {
	switch r.IntN(5) {
	case 0:
		return 0
	case 1:
		return r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20))
	case 2:
		return math.Float64frombits(r.Uint64()&^(0x7ff<<52) | uint64(r.IntN(0x7fe)+1)<<52) // any finite normal number
	default:
		return r.Float64() * 1000
	}
}

func TestJSONRoundTripRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	syncs := []SyncMode{SyncFdatasync, SyncFsync, SyncDsync, SyncDirect, SyncNone}
	endings := []Ending{EndCompleted, EndInterrupted, EndFailed}
	for run := range 200 {
		var samples []Sample
		for i := range r.IntN(30) {
			s := jsonlRandSample(r, i+1)
			if run%2 == 1 {
				s.OpsPerS, s.MiBPerS, s.P50Ms, s.P95Ms, s.P99Ms, s.MaxMs = jsonlRandFloat(r), jsonlRandFloat(r), jsonlRandFloat(r), jsonlRandFloat(r), jsonlRandFloat(r), jsonlRandFloat(r)
				s.Sec, s.Errors = int(r.Int64()), r.Int64()
			}
			samples = append(samples, s)
		}
		sum := Summary{
			DurationS: round(r.Float64()*3600, 3),
			Ops:       r.Int64(),
			OpsPerS:   jsonlRandFloat(r),
			MiBPerS:   jsonlRandFloat(r),
			P50Ms:     jsonlRandFloat(r),
			P95Ms:     jsonlRandFloat(r),
			P99Ms:     jsonlRandFloat(r),
			MaxMs:     jsonlRandFloat(r),
			Errors:    r.Int64N(100),
			Ended:     endings[r.IntN(len(endings))],
			Workload: Spec{
				Workload: "fsync",
				Dir:      strings.Repeat("dir/\"é\\\n", r.IntN(3)),
				BS:       Size(r.Int64N(int64(TiB))),
				FileSize: Size(r.Int64N(int64(1024 * TiB))),
				Sync:     syncs[r.IntN(len(syncs))],
				Prealloc: []Prealloc{PreallocFallocate, PreallocWrite, PreallocNone}[r.IntN(3)],
				Threads:  r.IntN(MaxThreads) + 1,
				Duration: Duration(r.Int64N(int64(24 * time.Hour))),
				Keep:     r.IntN(2) == 0,
			},
		}
		if sum.Ended != EndCompleted {
			sum.Error = "writer 0: input/output error <&>"
		}

		var buf bytes.Buffer
		enc := NewJSONEncoder(&buf)
		for _, s := range samples {
			if err := enc.Sample(s); err != nil {
				t.Fatalf("run %d: Sample(%+v): %v", run, s, err)
			}
		}
		if err := enc.Summary(sum); err != nil {
			t.Fatalf("run %d: Summary(%+v): %v", run, sum, err)
		}
		stream := buf.String()

		recs, d := jsonlDecodeAll(t, &buf)
		if err := d.Err(); err != nil {
			t.Fatalf("run %d: Err() = %v\n%s", run, err, stream)
		}
		want := make([]Record, 0, len(samples)+1)
		for i := range samples {
			want = append(want, Record{Type: "sample", Sample: &samples[i]})
		}
		want = append(want, Record{Type: "summary", Summary: &sum})
		if !reflect.DeepEqual(recs, want) {
			t.Fatalf("run %d: round trip differs\n got %s\nwant %s\nstream:\n%s", run, jsonlShow(recs), jsonlShow(want), stream)
		}
	}
}

func FuzzDecoder(f *testing.F) {
	var buf bytes.Buffer
	enc := NewJSONEncoder(&buf)
	_ = enc.Sample(Sample{Sec: 1, OpsPerS: 5120.5, MiBPerS: 20.002, P50Ms: 0.1843, P95Ms: 0.3121, P99Ms: 0.9871, MaxMs: 3.2})
	_ = enc.Summary(jsonlTestSummary())
	f.Add(buf.Bytes())
	f.Add([]byte(`{"type":"note"}` + "\n\n" + `{"type":"sample","sec":2,`))
	f.Add([]byte(`{"type":"summary","workload":{"bs":"4q","duration":"x"}}`))
	f.Add([]byte("\r\n{\n[]\nnull\n\"sample\"\n{\"type\":1}\n{\"TYPE\":\"sample\"}"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, in []byte) {
		d := NewDecoder(bytes.NewReader(in))
		n := 0
		for d.Scan() {
			n++
			r := d.Record()
			switch r.Type {
			case "sample":
				if r.Sample == nil || r.Summary != nil {
					t.Fatalf("record %d of type sample has Sample %v, Summary %v", n, r.Sample, r.Summary)
				}
			case "summary":
				if r.Summary == nil || r.Sample != nil {
					t.Fatalf("record %d of type summary has Sample %v, Summary %v", n, r.Sample, r.Summary)
				}
			default:
				t.Fatalf("record %d has type %q", n, r.Type)
			}
			if n > len(in) {
				t.Fatalf("%d records from %d bytes", n, len(in))
			}
		}
		if d.Scan() {
			t.Fatalf("Scan returned true after returning false")
		}
		err := d.Err()
		errs := d.BadLines()
		if (err == nil) != (len(errs) == 0) {
			t.Fatalf("Err() = %v with %d syntax errors", err, len(errs))
		}
		prev := 0
		for i, se := range errs {
			if se.Line <= prev {
				t.Fatalf("syntax error lines not increasing: %d after %d", se.Line, prev)
			}
			prev = se.Line
			if se.Torn && (i != len(errs)-1 || bytes.HasSuffix(in, []byte("\n"))) {
				t.Fatalf("line %d reported torn, but it is not an unterminated last line", se.Line)
			}
			_ = se.Error()
		}
	})
}

func jsonlShow(recs []Record) string {
	var b strings.Builder
	for _, r := range recs {
		switch {
		case r.Sample != nil:
			j, _ := json.Marshal(r.Sample)
			b.WriteString(r.Type + " " + string(j) + "; ")
		case r.Summary != nil:
			j, _ := json.Marshal(r.Summary)
			b.WriteString(r.Type + " " + string(j) + "; ")
		default:
			b.WriteString(r.Type + " <empty>; ")
		}
	}
	return b.String()
}
