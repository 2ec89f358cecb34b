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
	if err := checkSettings("image", s, imageSettings); err != nil {
		return nil, err
	}
	if v, ok := s["ami"]; ok && !amiID.MatchString(v) {
		return nil, fmt.Errorf("image: ami %q: want an image id, like ami-0123456789abcdef0", v)
	}
	return &image{settings: s}, nil
}

// imageUnavailable is why a plain host cannot switch images. A twin EC2
// instance and the lab's emulated image come in later issues.
func imageUnavailable() error {
	return &Unavailable{Knob: "image", Reason: "image needs AWS (a twin instance on an older AMI) or the lab; on this host, downgrade the image by hand and use a manual step"}
}

func (k *image) Plan(ctx context.Context, env Env, w probe.Spec) (Change, error) {
	return Change{Knob: "image", Settings: k.settings}, imageUnavailable()
}

func (k *image) Apply(ctx context.Context, env Env, w probe.Spec) (probe.Spec, Change, Revert, error) {
	c, err := k.Plan(ctx, env, w)
	return w, c, nil, err
}
