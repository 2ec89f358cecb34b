package ebs

import "testing"

// TestGP2 walks the sizes where gp2's rules change: the floor, 3 per GiB,
// the burst overtaken, the ceiling.
func TestGP2(t *testing.T) {
	for _, u := range []struct{ size, baseline, burst int }{
		{1, 100, 3000}, {33, 100, 3000}, {34, 102, 3000}, {100, 300, 3000},
		{999, 2997, 3000}, {1000, 3000, 3000}, {2000, 6000, 6000},
		{5333, 15999, 15999}, {5334, 16000, 16000}, {MaxSizeGiB, 16000, 16000},
	} {
		baseline, burst := GP2Baseline(u.size), GP2Burst(u.size)
		if baseline != u.baseline || burst != u.burst {
			t.Errorf("gp2 of %d GiB: baseline %d, burst %d; want %d, %d", u.size, baseline, burst, u.baseline, u.burst)
		}
	}
}

func TestMinIOPS(t *testing.T) {
	uu := map[string]struct {
		least       int
		provisioned bool
	}{
		"gp2": {0, false}, "gp3": {3000, true}, "io1": {100, true}, "io2": {100, true},
		"st1": {0, false}, "sc1": {0, false}, "standard": {0, false},
	}
	for _, typ := range Types {
		u, ok := uu[typ]
		if !ok {
			t.Errorf("%s: a type the test does not know", typ)
			continue
		}
		if least, p := MinIOPS(typ); least != u.least || p != u.provisioned {
			t.Errorf("MinIOPS(%s) = %d, %v; want %d, %v", typ, least, p, u.least, u.provisioned)
		}
	}
}
