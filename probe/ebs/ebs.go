// Package ebs owns the published limits of Amazon EBS volume types, as the
// AWS documentation states them: the types the EC2 API names, gp2's
// baseline per GiB and its burst-credit bucket, gp3's defaults and ratios,
// io1's and io2's provisioned IOPS. It is data and the two derivations
// every reader needs (gp2's baseline and burst), no AWS calls: the lab
// emulates these limits, the volume-type knob checks its settings against
// them, and the EC2 code is to read them from here too. Maxima change as
// AWS raises them; where only the EC2 API can say, it is left to say it.
package ebs

// Types are the EBS volume types, as the EC2 API names them.
var Types = []string{"gp2", "gp3", "io1", "io2", "st1", "sc1", "standard"}

// MaxSizeGiB is the largest gp2 or io1 volume, 16 TiB. gp3 goes further
// (GP3MaxSizeGiB), as io2 Block Express does.
const MaxSizeGiB = 16384

// gp2: IOPS come from the size, and a volume below 3,000 IOPS bursts to
// 3,000 while its I/O credit bucket (5.4 million, 3,000 IOPS for 30
// minutes) lasts.
const (
	GP2IOPSPerGiB = 3
	GP2MinIOPS    = 100
	GP2MaxIOPS    = 16000
	GP2BurstIOPS  = 3000
	GP2Credits    = 5_400_000
)

// gp3: 3,000 IOPS and 125 MiB/s whatever the size, which are also its
// minimums. IOPS above that need at most 500 per GiB, up to 80,000 (from
// 160 GiB); throughput above it needs 4 IOPS per MiB/s (0.25 MiB/s per
// IOPS), up to 2,000 MiB/s (from 8,000 IOPS); a volume takes up to 64 TiB.
// On Outposts gp3 keeps its first limits: 16 TiB, 16,000 IOPS, 1,000 MiB/s.
const (
	GP3IOPS       = 3000
	GP3MaxIOPS    = 80000
	GP3IOPSPerGiB = 500
	GP3MiB        = 125
	GP3MaxMiB     = 2000
	GP3IOPSPerMiB = 4
	GP3MaxSizeGiB = 65536
)

// io1 and io2: provisioned IOPS, required. io1 takes at most 50 IOPS per
// GiB on at least 4 GiB.
const (
	IO1MinIOPS    = 100
	IO1MaxIOPS    = 64000
	IO1MinGiB     = 4
	IO1IOPSPerGiB = 50
	IO2MinIOPS    = 100
)

// MaxSize is the largest volume of type typ, in GiB.
func MaxSize(typ string) int {
	if typ == "gp3" {
		return GP3MaxSizeGiB
	}
	return MaxSizeGiB
}

// MinIOPS is the least provisioned IOPS a type takes; provisioned is false
// for the types without provisioned IOPS.
func MinIOPS(typ string) (least int, provisioned bool) {
	switch typ {
	case "gp3":
		return GP3IOPS, true
	case "io1":
		return IO1MinIOPS, true
	case "io2":
		return IO2MinIOPS, true
	}
	return 0, false
}

// GP2Baseline is a gp2 volume's sustained IOPS: 3 per GiB, at least 100,
// at most 16,000.
func GP2Baseline(sizeGiB int) int {
	return min(max(GP2IOPSPerGiB*sizeGiB, GP2MinIOPS), GP2MaxIOPS)
}

// GP2Burst is the IOPS a gp2 volume gets while it has credits: 3,000, or
// its baseline when that is higher (a volume of 1,000 GiB or more does not
// burst).
func GP2Burst(sizeGiB int) int {
	return max(GP2Baseline(sizeGiB), GP2BurstIOPS)
}
