package lab

import (
	"fmt"
	"strings"
)

// MaxCredits is the size of an emulated gp2 volume's I/O credit bucket, as
// on EBS: 5.4 million I/O credits, enough for 3,000 IOPS for 30 minutes.
const MaxCredits = 5_400_000

// MiB is a mebibyte, the unit of a model's throughput.
const MiB = 1 << 20

// Limits of the EBS volume types the lab emulates (AWS documentation for
// gp2, gp3 and io1 volumes).
const (
	gp2PerGiB   = 3     // gp2 baseline IOPS per GiB
	gp2Min      = 100   // gp2 baseline floor
	gp2Max      = 16000 // gp2 baseline ceiling
	gp2Burst    = 3000  // gp2 burst IOPS while credits last
	gp3IOPS     = 3000  // gp3 default (and minimum) IOPS
	gp3MaxIOPS  = 16000
	gp3MiB      = 125 // gp3 default (and minimum) throughput, MiB/s
	gp3MaxMiB   = 1000
	io1MinIOPS  = 100
	io1MaxIOPS  = 64000
	maxSizeGiB  = 16384
	io1MinGiB   = 4
	io1PerGiB   = 50  // io1: at most 50 provisioned IOPS per GiB
	gp3PerGiB   = 500 // gp3: IOPS above 3000 need 500 IOPS per GiB or less
	gp3MiBPerIO = 4   // gp3: throughput above 125 MiB/s needs 4 IOPS per MiB/s
)

// Model is an emulated EBS volume: the lab imitates its write IOPS (and,
// when set, its write throughput) with the kernel's I/O throttling. It is an
// emulation of the published limits, not EBS itself.
type Model struct {
	Type          string `json:"type"` // gp2, gp3, io1
	SizeGiB       int    `json:"size_gib"`
	IOPS          int    `json:"iops,omitempty"`           // gp3 (default 3000) / io1 (required); gp2: 0 (derived from the size)
	ThroughputMiB int    `json:"throughput_mib,omitempty"` // MiB/s; gp3 default 125; 0 = no byte limit
}

// NewModel validates an emulated volume against EBS's rules and fills in
// the defaults (gp3: 3000 IOPS, 125 MiB/s). The type is case-insensitive.
func NewModel(typ string, sizeGiB, iops, throughputMiB int) (Model, error) {
	m := Model{Type: strings.ToLower(strings.TrimSpace(typ)), SizeGiB: sizeGiB, IOPS: iops, ThroughputMiB: throughputMiB}
	if sizeGiB < 1 || sizeGiB > maxSizeGiB {
		return Model{}, fmt.Errorf("lab: volume size %d GiB: must be 1 to %d GiB", sizeGiB, maxSizeGiB)
	}
	if iops < 0 {
		return Model{}, fmt.Errorf("lab: %d IOPS: must not be negative", iops)
	}
	if throughputMiB < 0 {
		return Model{}, fmt.Errorf("lab: throughput %d MiB/s: must not be negative", throughputMiB)
	}
	switch m.Type {
	case "gp2":
		if iops != 0 {
			return Model{}, fmt.Errorf("lab: gp2 IOPS come from the size (3 per GiB, min %d, max %d, burst %d): leave IOPS at 0, not %d", gp2Min, gp2Max, gp2Burst, iops)
		}
	case "gp3":
		if m.IOPS == 0 {
			m.IOPS = gp3IOPS
		}
		if m.ThroughputMiB == 0 {
			m.ThroughputMiB = gp3MiB
		}
		if m.IOPS < gp3IOPS || m.IOPS > gp3MaxIOPS {
			return Model{}, fmt.Errorf("lab: gp3 with %d IOPS: must be %d to %d", m.IOPS, gp3IOPS, gp3MaxIOPS)
		}
		if m.IOPS > gp3IOPS && m.IOPS > gp3PerGiB*sizeGiB {
			return Model{}, fmt.Errorf("lab: gp3 with %d IOPS on %d GiB: above %d IOPS at most %d IOPS per GiB (%d)", m.IOPS, sizeGiB, gp3IOPS, gp3PerGiB, gp3PerGiB*sizeGiB)
		}
		if m.ThroughputMiB < gp3MiB || m.ThroughputMiB > gp3MaxMiB {
			return Model{}, fmt.Errorf("lab: gp3 with %d MiB/s: must be %d to %d MiB/s", m.ThroughputMiB, gp3MiB, gp3MaxMiB)
		}
		if m.ThroughputMiB > gp3MiB && m.ThroughputMiB*gp3MiBPerIO > m.IOPS {
			return Model{}, fmt.Errorf("lab: gp3 with %d MiB/s and %d IOPS: needs at least %d IOPS (%d per MiB/s)", m.ThroughputMiB, m.IOPS, m.ThroughputMiB*gp3MiBPerIO, gp3MiBPerIO)
		}
	case "io1":
		if iops == 0 {
			return Model{}, fmt.Errorf("lab: io1 needs provisioned IOPS (%d to %d)", io1MinIOPS, io1MaxIOPS)
		}
		if sizeGiB < io1MinGiB {
			return Model{}, fmt.Errorf("lab: io1 of %d GiB: must be at least %d GiB", sizeGiB, io1MinGiB)
		}
		if iops < io1MinIOPS || iops > io1MaxIOPS {
			return Model{}, fmt.Errorf("lab: io1 with %d IOPS: must be %d to %d", iops, io1MinIOPS, io1MaxIOPS)
		}
		if iops > io1PerGiB*sizeGiB {
			return Model{}, fmt.Errorf("lab: io1 with %d IOPS on %d GiB: at most %d IOPS per GiB (%d)", iops, sizeGiB, io1PerGiB, io1PerGiB*sizeGiB)
		}
	case "":
		return Model{}, fmt.Errorf("lab: volume type missing: gp2, gp3 or io1")
	default:
		return Model{}, fmt.Errorf("lab: volume type %q: the lab emulates gp2, gp3 and io1", typ)
	}
	return m, nil
}

// Baseline is the volume's sustained write IOPS: gp2 3 per GiB (at least
// 100, at most 16,000); gp3 and io1 their provisioned IOPS.
func (m Model) Baseline() int {
	if m.Type == "gp2" {
		return min(max(gp2PerGiB*m.SizeGiB, gp2Min), gp2Max)
	}
	return m.IOPS
}

// Burst is the IOPS a gp2 volume gets while it has I/O credits (3,000, when
// that is above its baseline); other types do not burst.
func (m Model) Burst() int {
	b := m.Baseline()
	if m.Type == "gp2" && b < gp2Burst {
		return gp2Burst
	}
	return b
}

// String describes the volume, like "gp2 30 GiB (baseline 100 IOPS, burst 3000)".
func (m Model) String() string {
	switch m.Type {
	case "gp2":
		s := fmt.Sprintf("gp2 %d GiB (baseline %d IOPS, burst %d", m.SizeGiB, m.Baseline(), m.Burst())
		if m.ThroughputMiB > 0 {
			s += fmt.Sprintf(", %d MiB/s", m.ThroughputMiB)
		}
		return s + ")"
	default:
		s := fmt.Sprintf("%s %d GiB (%d IOPS", m.Type, m.SizeGiB, m.IOPS)
		if m.ThroughputMiB > 0 {
			s += fmt.Sprintf(", %d MiB/s", m.ThroughputMiB)
		}
		return s + ")"
	}
}
