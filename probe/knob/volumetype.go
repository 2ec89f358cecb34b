package knob

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/perfbisect/perfbisect/probe"
	"github.com/perfbisect/perfbisect/probe/ebs"
)

var volumeTypeSettings = map[string]string{
	"to":         "the EBS volume type to move the data to: " + strings.Join(ebs.Types, ", ") + " (required)",
	"iops":       fmt.Sprintf("provisioned IOPS, for gp3 (default %d), io1 and io2 (required for those)", ebs.GP3IOPS),
	"throughput": fmt.Sprintf("provisioned throughput in MiB/s, for gp3 only (default %d)", ebs.GP3MiB),
}

func init() {
	register(Kind{
		Name:     "volume-type",
		Summary:  "run the step on another EBS volume type (a scratch volume on EC2, the emulated volume's limits in the lab)",
		Settings: volumeTypeSettings,
		New:      newVolumeType,
	})
}

type volumeType struct {
	to               string
	iops, throughput int // 0: not set
	settings         Settings
}

func newVolumeType(s Settings) (Knob, error) {
	const knob = "volume-type"
	to, err := required(knob, s, "to", "the EBS volume type, one of "+strings.Join(ebs.Types, ", "))
	if err != nil {
		return nil, err
	}
	if err := oneOf(knob, "to", to, ebs.Types...); err != nil {
		return nil, err
	}
	k := &volumeType{to: to, settings: s}
	positive := func(name string) (int, error) {
		v, ok := s[name]
		if !ok {
			return 0, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return 0, fmt.Errorf("%s: %s %q: want a whole number above zero", knob, name, v)
		}
		return n, nil
	}
	if k.iops, err = positive("iops"); err != nil {
		return nil, err
	}
	if k.throughput, err = positive("throughput"); err != nil {
		return nil, err
	}
	least, provisioned := ebs.MinIOPS(to)
	switch {
	case k.iops > 0 && !provisioned:
		return nil, fmt.Errorf("%s: iops: %s has no provisioned IOPS (only gp3, io1 and io2 do)", knob, to)
	case k.iops > 0 && k.iops < least:
		return nil, fmt.Errorf("%s: iops %d: %s takes at least %d", knob, k.iops, to, least)
	case k.iops == 0 && (to == "io1" || to == "io2"):
		return nil, fmt.Errorf("%s: setting \"iops\" is required for %s: its provisioned IOPS, at least %d", knob, to, least)
	case k.throughput > 0 && to != "gp3":
		return nil, fmt.Errorf("%s: throughput: only gp3 has provisioned throughput, not %s", knob, to)
	case k.throughput > 0 && k.throughput < ebs.GP3MiB:
		return nil, fmt.Errorf("%s: throughput %d: gp3 takes at least %d MiB/s", knob, k.throughput, ebs.GP3MiB)
	}
	return k, nil
}

// volumeTypeNotHere is why a plain host cannot change its volume type.
// EC2 (a scratch volume, or ModifyVolume) comes in a later issue.
const volumeTypeNotHere = "volume-type needs EC2 or the lab (perfbisect lab up): this host has no EBS volume"

func (k *volumeType) Plan(ctx context.Context, env Env, w probe.Spec) (Change, error) {
	c := Change{Knob: "volume-type", Settings: k.settings}
	// What Apply could not do is said before the operator is asked.
	lab, err := labAsRoot(env, w, "volume-type", volumeTypeNotHere, "changing the lab's volume")
	if err != nil {
		return c, err
	}
	if err := lab.CheckVolume(k.to, k.iops, k.throughput); err != nil {
		return c, &Unavailable{Knob: "volume-type", Reason: fmt.Sprintf("the lab cannot emulate it: %v", err)}
	}
	c.Before = lab.Volume()
	c.Do = []string{fmt.Sprintf("lab: change the emulated volume to %s%s (the kernel's I/O throttle of the lab's loop device; an emulation, not EBS)", k.to, k.extra())}
	c.Undo = []string{"lab: back to " + c.Before}
	return c, nil
}

func (k *volumeType) extra() string {
	s := ""
	if k.iops > 0 {
		s += fmt.Sprintf(", %d IOPS", k.iops)
	}
	if k.throughput > 0 {
		s += fmt.Sprintf(", %d MiB/s", k.throughput)
	}
	return s
}

func (k *volumeType) Apply(ctx context.Context, env Env, w probe.Spec) (probe.Spec, Change, Revert, error) {
	c, err := k.Plan(ctx, env, w)
	if err != nil {
		return w, c, nil, err
	}
	undo, err := env.Lab.VolumeUndo()
	if err == nil {
		err = will(env, "the lab's emulated volume switched to "+k.to, undo)
	}
	if err != nil {
		return w, c, nil, fmt.Errorf("volume-type: %v", err)
	}
	after, revert, err := env.Lab.SetVolume(ctx, k.to, k.iops, k.throughput)
	if err != nil {
		return w, c, nil, fmt.Errorf("volume-type: %v", err)
	}
	c.After = after
	return w, c, once(revert), nil
}
