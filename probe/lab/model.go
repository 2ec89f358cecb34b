package lab

import (
	"fmt"
	"strings"

	"github.com/perfbisect/perfbisect/probe/ebs"
)

// MaxCredits is the size of an emulated gp2 volume's I/O credit bucket:
// EBS's own.
const MaxCredits = ebs.GP2Credits

// MiB is a mebibyte, the unit of a model's throughput.
const MiB = 1 << 20

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
	if max := ebs.MaxSize(m.Type); sizeGiB < 1 || sizeGiB > max {
		return Model{}, fmt.Errorf("lab: %s volume size %d GiB: must be 1 to %d GiB", m.Type, sizeGiB, max)
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
			return Model{}, fmt.Errorf("lab: gp2 IOPS come from the size (%d per GiB, min %d, max %d, burst %d): leave IOPS at 0, not %d", ebs.GP2IOPSPerGiB, ebs.GP2MinIOPS, ebs.GP2MaxIOPS, ebs.GP2BurstIOPS, iops)
		}
	case "gp3":
		if m.IOPS == 0 {
			m.IOPS = ebs.GP3IOPS
		}
		if m.ThroughputMiB == 0 {
			m.ThroughputMiB = ebs.GP3MiB
		}
		if m.IOPS < ebs.GP3IOPS || m.IOPS > ebs.GP3MaxIOPS {
			return Model{}, fmt.Errorf("lab: gp3 with %d IOPS: must be %d to %d", m.IOPS, ebs.GP3IOPS, ebs.GP3MaxIOPS)
		}
		if m.IOPS > ebs.GP3IOPS && m.IOPS > ebs.GP3IOPSPerGiB*sizeGiB {
			return Model{}, fmt.Errorf("lab: gp3 with %d IOPS on %d GiB: above %d IOPS at most %d IOPS per GiB (%d)", m.IOPS, sizeGiB, ebs.GP3IOPS, ebs.GP3IOPSPerGiB, ebs.GP3IOPSPerGiB*sizeGiB)
		}
		if m.ThroughputMiB < ebs.GP3MiB || m.ThroughputMiB > ebs.GP3MaxMiB {
			return Model{}, fmt.Errorf("lab: gp3 with %d MiB/s: must be %d to %d MiB/s", m.ThroughputMiB, ebs.GP3MiB, ebs.GP3MaxMiB)
		}
		if m.ThroughputMiB > ebs.GP3MiB && m.ThroughputMiB*ebs.GP3IOPSPerMiB > m.IOPS {
			return Model{}, fmt.Errorf("lab: gp3 with %d MiB/s and %d IOPS: needs at least %d IOPS (%d per MiB/s)", m.ThroughputMiB, m.IOPS, m.ThroughputMiB*ebs.GP3IOPSPerMiB, ebs.GP3IOPSPerMiB)
		}
	case "io1":
		if iops == 0 {
			return Model{}, fmt.Errorf("lab: io1 needs provisioned IOPS (%d to %d)", ebs.IO1MinIOPS, ebs.IO1MaxIOPS)
		}
		if sizeGiB < ebs.IO1MinGiB {
			return Model{}, fmt.Errorf("lab: io1 of %d GiB: must be at least %d GiB", sizeGiB, ebs.IO1MinGiB)
		}
		if iops < ebs.IO1MinIOPS || iops > ebs.IO1MaxIOPS {
			return Model{}, fmt.Errorf("lab: io1 with %d IOPS: must be %d to %d", iops, ebs.IO1MinIOPS, ebs.IO1MaxIOPS)
		}
		if iops > ebs.IO1IOPSPerGiB*sizeGiB {
			return Model{}, fmt.Errorf("lab: io1 with %d IOPS on %d GiB: at most %d IOPS per GiB (%d)", iops, sizeGiB, ebs.IO1IOPSPerGiB, ebs.IO1IOPSPerGiB*sizeGiB)
		}
	case "":
		return Model{}, fmt.Errorf("lab: volume type missing: gp2, gp3 or io1")
	default:
		return Model{}, fmt.Errorf("lab: volume type %q: the lab emulates gp2, gp3 and io1", typ)
	}
	return m, nil
}

// Baseline is the volume's sustained write IOPS: gp2's from its size,
// gp3's and io1's as provisioned.
func (m Model) Baseline() int {
	if m.Type == "gp2" {
		return ebs.GP2Baseline(m.SizeGiB)
	}
	return m.IOPS
}

// Burst is the IOPS a gp2 volume gets while it has I/O credits; other
// types do not burst.
func (m Model) Burst() int {
	if m.Type == "gp2" {
		return ebs.GP2Burst(m.SizeGiB)
	}
	return m.Baseline()
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
