package tool

import (
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfbisect/perfbisect/probe"
)

func TestSplitWords(t *testing.T) {
	uu := map[string]struct {
		in   string
		want []string
		err  string
	}{
		"blanks":             {in: "  --rw=write\t--bs=4k \n", want: []string{"--rw=write", "--bs=4k"}},
		"single quotes":      {in: `--name='my job' --x='a"b\c'`, want: []string{"--name=my job", `--x=a"b\c`}},
		"double quotes":      {in: `--name="my \"job\" \$HOME \n"`, want: []string{`--name=my "job" $HOME \n`}},
		"quoted newline":     {in: "\"a\\\nb\" 'c\\\nd'", want: []string{"ab", "c\\\nd"}},
		"backslash":          {in: `a\ b c\\d`, want: []string{"a b", `c\d`}},
		"empty quotes":       {in: `'' ""`, want: []string{"", ""}},
		"nothing":            {in: "", want: nil},
		"open single quote":  {in: "--name='x", err: "' that is not closed"},
		"open double quote":  {in: `--name="x`, err: `" that is not closed`},
		"trailing backslash": {in: `x\`, err: "backslash at the end"},
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) {
			got, err := splitWords(u.in)
			if u.err != "" {
				if err == nil || !strings.Contains(err.Error(), u.err) {
					t.Errorf("err = %v, want %q", err, u.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(u.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestPasswordPipe(t *testing.T) {
	uu := map[string]struct {
		pw, want string // want "" means: not in a config file (MYSQL_PWD)
	}{
		"plain":          {"secret", `mysql-password="secret"` + "\n"},
		"blank and hash": {"a b#c", `mysql-password="a b#c"` + "\n"},
		"double quote":   {`a"b`, `mysql-password='a"b'` + "\n"},
		"both quotes":    {`a"b'c`, ""},
		"newline":        {"a\nb", ""},
		"too long":       {strings.Repeat("x", 250), ""},
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) {
			f, err := passwordPipe(u.pw)
			if err != nil {
				t.Fatal(err)
			}
			if u.want == "" {
				if f != nil {
					t.Error("a config file for a password sysbench cannot read from one")
				}
				return
			}
			defer f.Close()
			b, err := io.ReadAll(f)
			if err != nil || string(b) != u.want {
				t.Errorf("config %q, %v; want %q", b, err, u.want)
			}
		})
	}
}

func TestSummaryLatenciesOnlyFromTheFinalReport(t *testing.T) {
	var a probe.Totals
	for i, ops := range []float64{100, 200, 300} {
		a.Add(probe.Sample{Sec: i + 1, OpsPerS: ops, P95Ms: 9, Errors: 1, Real: probe.FieldOps | probe.FieldP95 | probe.FieldErrors})
	}
	s := summary(&a, nil)
	want := probe.Summary{DurationS: 3, Ops: 600, OpsPerS: 200, Errors: 3, Real: probe.FieldOps | probe.FieldErrors}
	if d := cmp.Diff(want, s); d != "" {
		t.Errorf("without a final report (-want +got):\n%s", d)
	}
	final := &probe.Summary{P95Ms: 7, MaxMs: 30, AvgMs: 2, P50Ms: 99, Ops: 12345, Real: probe.FieldP95 | probe.FieldMax | probe.FieldAvg | probe.FieldOps}
	s = summary(&a, final)
	want.P95Ms, want.MaxMs, want.AvgMs = 7, 30, 2
	want.Real |= probe.FieldP95 | probe.FieldMax | probe.FieldAvg
	if d := cmp.Diff(want, s); d != "" {
		t.Errorf("with a final report (-want +got):\n%s", d)
	}
}
