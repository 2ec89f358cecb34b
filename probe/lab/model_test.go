package lab

import (
	"strings"
	"testing"
)

func TestModel(t *testing.T) {
	for _, c := range []struct {
		typ                   string
		size, iops, mib       int
		baseline, burst, want int // want: IOPS after defaults
		wantMiB               int
		str                   string
	}{
		{"gp2", 30, 0, 0, 100, 3000, 0, 0, "gp2 30 GiB (baseline 100 IOPS, burst 3000)"},
		{"gp2", 1, 0, 0, 100, 3000, 0, 0, "gp2 1 GiB (baseline 100 IOPS, burst 3000)"},
		{"gp2", 100, 0, 0, 300, 3000, 0, 0, "gp2 100 GiB (baseline 300 IOPS, burst 3000)"},
		{"gp2", 1000, 0, 0, 3000, 3000, 0, 0, "gp2 1000 GiB (baseline 3000 IOPS, burst 3000)"},
		{"gp2", 2000, 0, 0, 6000, 6000, 0, 0, "gp2 2000 GiB (baseline 6000 IOPS, burst 6000)"},
		{"gp2", 6000, 0, 0, 16000, 16000, 0, 0, "gp2 6000 GiB (baseline 16000 IOPS, burst 16000)"},
		{"GP3", 30, 0, 0, 3000, 3000, 3000, 125, "gp3 30 GiB (3000 IOPS, 125 MiB/s)"},
		{"gp3", 100, 6000, 500, 6000, 6000, 6000, 500, "gp3 100 GiB (6000 IOPS, 500 MiB/s)"},
		{"gp3", 20000, 0, 0, 3000, 3000, 3000, 125, "gp3 20000 GiB (3000 IOPS, 125 MiB/s)"}, // past gp2's 16 TiB
		{"io1", 100, 5000, 0, 5000, 5000, 5000, 0, "io1 100 GiB (5000 IOPS)"},
	} {
		m, err := NewModel(c.typ, c.size, c.iops, c.mib)
		if err != nil {
			t.Errorf("NewModel(%q, %d, %d, %d): %v", c.typ, c.size, c.iops, c.mib, err)
			continue
		}
		if m.Baseline() != c.baseline || m.Burst() != c.burst || m.IOPS != c.want || m.ThroughputMiB != c.wantMiB || m.String() != c.str {
			t.Errorf("NewModel(%q, %d, %d, %d) = %+v: baseline %d burst %d %q; want baseline %d burst %d IOPS %d %d MiB/s %q",
				c.typ, c.size, c.iops, c.mib, m, m.Baseline(), m.Burst(), m, c.baseline, c.burst, c.want, c.wantMiB, c.str)
		}
	}
}

func TestModelErrors(t *testing.T) {
	for _, c := range []struct {
		typ             string
		size, iops, mib int
		want            string
	}{
		{"io1", 100, 0, 0, "io1 needs provisioned IOPS"},
		{"io1", 100, 6000, 0, "at most 50 IOPS per GiB"},
		{"io1", 2, 100, 0, "at least 4 GiB"},
		{"gp2", 30, 500, 0, "gp2 IOPS come from the size"},
		{"gp2", 0, 0, 0, "must be 1 to 16384"},
		{"gp2", 20000, 0, 0, "must be 1 to 16384"},
		{"gp2", -1, 0, 0, "must be 1 to 16384"},
		{"gp3", 30, 1000, 0, "must be 3000 to 80000"},
		{"gp3", 300, 90000, 0, "must be 3000 to 80000"},
		{"gp3", 1, 4000, 0, "500 IOPS per GiB"},
		{"gp3", 30, 0, 3000, "125 to 2000 MiB/s"},
		{"gp3", 30, 3000, 1000, "needs at least 4000 IOPS"},
		{"gp3", 30, -5, 0, "must not be negative"},
		{"gp3", 30, 0, -5, "must not be negative"},
		{"gp3", 70000, 0, 0, "gp3 volume size 70000 GiB: must be 1 to 65536"},
		{"io1", 20000, 1000, 0, "io1 volume size 20000 GiB: must be 1 to 16384"},
		{"st1", 30, 0, 0, `volume type "st1"`},
		{"", 30, 0, 0, "volume type missing"},
	} {
		_, err := NewModel(c.typ, c.size, c.iops, c.mib)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewModel(%q, %d, %d, %d) = %v; want an error with %q", c.typ, c.size, c.iops, c.mib, err, c.want)
		}
	}
}

func TestLimit(t *testing.T) {
	gp2, _ := NewModel("gp2", 30, 0, 0)
	gp3, _ := NewModel("gp3", 30, 0, 0)
	for _, c := range []struct {
		m       Model
		credits float64
		iops    int
		bps     int64
	}{
		{gp2, MaxCredits, 3000, 0},
		{gp2, 2900, 3000, 0},      // one second of burst left
		{gp2, 2899, 100, 0},       // less: baseline (see Limit)
		{gp2, 0, 100, 0},          // drained
		{gp3, 0, 3000, 125 << 20}, // gp3 has no credits
	} {
		s := &State{Model: c.m, Credits: c.credits}
		if iops, bps := s.Limit(); iops != c.iops || bps != c.bps {
			t.Errorf("%v with %v credits: Limit() = %d, %d; want %d, %d", c.m, c.credits, iops, bps, c.iops, c.bps)
		}
	}
}
