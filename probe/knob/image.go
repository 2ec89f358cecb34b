package knob

import (
	"context"
	"fmt"
	"regexp"

	"github.com/perfbisect/perfbisect/probe"
)

var imageSettings = map[string]string{
	"ami":  "the machine image to compare with, like ami-0123456789abcdef0 (default: the previous image of the same family)",
	"note": "what differs in that image, for the report",
}

func init() {
	register(Kind{
		Name:     "image",
		Summary:  "run the step on an older machine image (a twin instance on EC2, the emulated image in the lab)",
		Settings: imageSettings,
		New:      newImage,
	})
}

var amiID = regexp.MustCompile(`^ami-([0-9a-f]{8}|[0-9a-f]{17})$`)

type image struct {
	settings Settings
}

func newImage(s Settings) (Knob, error) {
	if v, ok := s["ami"]; ok && !amiID.MatchString(v) {
		return nil, fmt.Errorf("image: ami %q: want an image id, like ami-0123456789abcdef0", v)
	}
	return &image{settings: s}, nil
}

// imageNotHere is why a plain host cannot switch images. A twin EC2
// instance comes in a later issue.
const imageNotHere = "image needs AWS (a twin instance on an older AMI) or the lab; on this host, downgrade the image by hand and use a manual step"

// labImage is the emulated image the lab switches to.
const labImage = "previous"

func (k *image) Plan(ctx context.Context, env Env, w probe.Spec) (Change, error) {
	c := Change{Knob: "image", Settings: k.settings}
	lab, err := labAsRoot(env, w, "image", imageNotHere, "switching the lab's emulated image")
	if err != nil {
		return c, err
	}
	c.Before = lab.Image()
	for _, d := range lab.ImageChanges(labImage) {
		c.Do = append(c.Do, "lab: "+d+" (what an older image plausibly changes; an emulation)")
	}
	if ami := k.settings["ami"]; ami != "" {
		// The lab has one older image; the pinned AMI is for EC2.
		c.Do = append(c.Do, "lab: the "+labImage+" emulated image stands for "+ami+", which only EC2 can boot")
	}
	c.Undo = []string{"lab: back to the " + c.Before + " image"}
	return c, nil
}

func (k *image) Apply(ctx context.Context, env Env, w probe.Spec) (probe.Spec, Change, Revert, error) {
	c, err := k.Plan(ctx, env, w)
	if err != nil {
		return w, c, nil, err
	}
	undo, err := env.Lab.ImageUndo()
	if err == nil {
		err = will(env, "the lab's emulated image switched to "+labImage, undo)
	}
	if err != nil {
		return w, c, nil, fmt.Errorf("image: %v", err)
	}
	after, revert, err := env.Lab.SetImage(ctx, labImage)
	if err != nil {
		return w, c, nil, fmt.Errorf("image: %v", err)
	}
	c.After = after
	return w, c, once(revert), nil
}
