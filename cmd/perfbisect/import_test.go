package main

import (
	"context"
	"strings"
	"testing"

	"github.com/perfbisect/perfbisect/probe"
)

func TestImportReadsRealToolOutput(t *testing.T) {
	uu := map[string]struct {
		file    string
		samples int
	}{
		"sysbench": {"../../probe/parse/testdata/sysbench-1.0.20-oltp_write_only.txt", 4},
		"pgbench":  {"../../probe/parse/testdata/pgbench-15-P1.txt", 5},
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) {
			code, out, stderr := runCLI(t, context.Background(), "import", u.file)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			d := probe.NewDecoder(strings.NewReader(out))
			var n int
			var sum *probe.Summary
			for d.Scan() {
				if r := d.Record(); r.Sample != nil {
					n++
				} else {
					sum = r.Summary
				}
			}
			if d.Err() != nil || n < u.samples || sum == nil || sum.Ops == 0 {
				t.Errorf("%d samples, summary %+v, err %v", n, sum, d.Err())
			}
		})
	}
	if code, _, stderr := runCLI(t, context.Background(), "import", "main.go"); code != exitFailure || !strings.Contains(stderr, "not sysbench, pgbench or fio output") {
		t.Errorf("import of Go source: exit %d, %s", code, stderr)
	}
}
