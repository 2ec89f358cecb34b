package knob

import "testing"

func TestVolumeTypeUnavailable(t *testing.T) {
	k := newKnob(t, "volume-type", Settings{"to": "gp3", "iops": "3000"})
	_, err := k.Plan(testCtx(t), Env{Root: true}, spec(""))
	wantUnavailable(t, err, "volume-type needs EC2 or the lab (perfbisect lab up): this host has no EBS volume")
	w := spec("")
	got, _, revert, err := k.Apply(testCtx(t), Env{Root: true}, w)
	wantUnavailable(t, err, "this host has no EBS volume")
	if revert != nil || got != w {
		t.Errorf("an unavailable knob returned a revert or changed the spec")
	}
}

func TestImageUnavailable(t *testing.T) {
	k := newKnob(t, "image", Settings{"ami": "ami-0123456789abcdef0"})
	_, err := k.Plan(testCtx(t), Env{Root: true}, spec(""))
	wantUnavailable(t, err, "image needs AWS (a twin instance on an older AMI) or the lab; on this host, downgrade the image by hand and use a manual step")
	_, _, revert, err := k.Apply(testCtx(t), Env{Root: true}, spec(""))
	wantUnavailable(t, err, "use a manual step")
	if revert != nil {
		t.Errorf("an unavailable knob returned a revert")
	}
}
