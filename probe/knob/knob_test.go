package knob

import (
	"strings"
	"testing"
)

var allKnobs = []string{"fsync", "host", "image", "manual", "mount-options", "scheduler", "shell", "sysctl", "tmpfs", "volume-type"}

func TestKinds(t *testing.T) {
	var got []string
	for _, k := range Kinds() {
		got = append(got, k.Name)
		if k.Summary == "" || len(k.Settings) == 0 || k.New == nil {
			t.Errorf("kind %s: summary, settings and New must all be given", k.Name)
		}
	}
	if strings.Join(got, " ") != strings.Join(allKnobs, " ") {
		t.Errorf("Kinds() = %v, want %v", got, allKnobs)
	}
}

func TestNewUnknownKnob(t *testing.T) {
	_, err := New("bogus", nil)
	wantErr(t, err, append([]string{`unknown knob "bogus"`}, allKnobs...)...)
}

func TestNewSettings(t *testing.T) {
	uu := map[string]struct {
		knob string
		s    Settings
		err  string // "" when the settings are good
	}{
		"tmpfs default":              {"tmpfs", nil, ""},
		"tmpfs size":                 {"tmpfs", Settings{"size": "2g"}, ""},
		"tmpfs unknown setting":      {"tmpfs", Settings{"sise": "2g"}, `tmpfs: unknown setting "sise" (tmpfs takes: size)`},
		"tmpfs bad size":             {"tmpfs", Settings{"size": "lots"}, `tmpfs: size: size "lots"`},
		"tmpfs zero size":            {"tmpfs", Settings{"size": "0"}, `tmpfs: size "0": want a size above zero`},
		"fsync default":              {"fsync", nil, ""},
		"fsync on":                   {"fsync", Settings{"mode": "on"}, ""},
		"fsync bad mode":             {"fsync", Settings{"mode": "maybe"}, `fsync: mode "maybe": want one of off, on`},
		"fsync unknown setting":      {"fsync", Settings{"sync": "off"}, `unknown setting "sync" (fsync takes: apply, mode, revert, timeout)`},
		"scheduler":                  {"scheduler", Settings{"value": "bfq"}, ""},
		"scheduler missing value":    {"scheduler", nil, `scheduler: setting "value" is required`},
		"scheduler bracketed value":  {"scheduler", Settings{"value": "[bfq]"}, `scheduler: value "[bfq]": want one scheduler name`},
		"sysctl":                     {"sysctl", Settings{"name": "vm.dirty_ratio", "value": "10"}, ""},
		"sysctl slashes":             {"sysctl", Settings{"name": "vm/dirty_ratio", "value": "10"}, ""},
		"sysctl missing name":        {"sysctl", Settings{"value": "10"}, `sysctl: setting "name" is required`},
		"sysctl missing value":       {"sysctl", Settings{"name": "vm.dirty_ratio"}, `sysctl: setting "value" is required`},
		"sysctl blank value":         {"sysctl", Settings{"name": "vm.dirty_ratio", "value": " "}, `sysctl: setting "value" is required`},
		"sysctl escaping name":       {"sysctl", Settings{"name": "vm/../../etc/passwd", "value": "1"}, `sysctl: name "vm/../../etc/passwd": want a kernel setting`},
		"sysctl empty part":          {"sysctl", Settings{"name": "vm..dirty_ratio", "value": "1"}, `sysctl: name "vm..dirty_ratio"`},
		"sysctl two lines":           {"sysctl", Settings{"name": "vm.dirty_ratio", "value": "1\n2"}, `sysctl: value "1\n2": want one line`},
		"mount-options":              {"mount-options", Settings{"options": "nobarrier,commit=60"}, ""},
		"mount-options allow root":   {"mount-options", Settings{"options": "noatime", "allow-root": "true"}, ""},
		"mount-options missing":      {"mount-options", nil, `mount-options: setting "options" is required`},
		"mount-options empty option": {"mount-options", Settings{"options": "noatime,,nodiratime"}, `want options separated by commas`},
		"mount-options space":        {"mount-options", Settings{"options": "noatime, nodiratime"}, `want options separated by commas`},
		"mount-options remount":      {"mount-options", Settings{"options": "remount,noatime"}, `remount is not an option a remount can change`},
		"mount-options allow-root":   {"mount-options", Settings{"options": "noatime", "allow-root": "yes"}, `mount-options: allow-root "yes": want true or false`},
		"shell":                      {"shell", Settings{"apply": "echo 1", "revert": "true"}, ""},
		"shell all":                  {"shell", Settings{"apply": "x", "revert": "y", "shell": "/bin/bash", "timeout": "5m"}, ""},
		"shell missing revert":       {"shell", Settings{"apply": "echo 1"}, `shell: setting "revert" is required: the command that puts the change back, or "true"`},
		"shell missing apply":        {"shell", Settings{"revert": "true"}, `shell: setting "apply" is required`},
		"shell bad timeout":          {"shell", Settings{"apply": "x", "revert": "y", "timeout": "60"}, `shell: timeout "60": want a positive duration with a unit`},
		"shell negative timeout":     {"shell", Settings{"apply": "x", "revert": "y", "timeout": "-1s"}, `shell: timeout "-1s"`},
		"manual":                     {"manual", Settings{"instructions": "do it", "undo": "undo it"}, ""},
		"manual missing":             {"manual", Settings{"undo": "undo it"}, `manual: setting "instructions" is required`},
		"manual unknown setting":     {"manual", Settings{"instructions": "x", "title": "y"}, `manual: unknown setting "title" (manual takes: instructions, undo)`},
		"host default":               {"host", nil, ""},
		"host unknown setting":       {"host", Settings{"to": "bare"}, `host: unknown setting "to" (host takes: instructions)`},
		"volume-type gp3":            {"volume-type", Settings{"to": "gp3", "iops": "6000", "throughput": "250"}, ""},
		"volume-type io2":            {"volume-type", Settings{"to": "io2", "iops": "16000"}, ""},
		"volume-type missing to":     {"volume-type", nil, `volume-type: setting "to" is required: the EBS volume type, one of gp2, gp3`},
		"volume-type bad to":         {"volume-type", Settings{"to": "gp4"}, `volume-type: to "gp4": want one of gp2, gp3, io1, io2, st1, sc1, standard`},
		"volume-type iops on gp2":    {"volume-type", Settings{"to": "gp2", "iops": "3000"}, `iops: gp2 has no provisioned IOPS`},
		"volume-type low gp3 iops":   {"volume-type", Settings{"to": "gp3", "iops": "100"}, `iops 100: gp3 takes at least 3000`},
		"volume-type io1 no iops":    {"volume-type", Settings{"to": "io1"}, `setting "iops" is required for io1`},
		"volume-type bad iops":       {"volume-type", Settings{"to": "gp3", "iops": "many"}, `iops "many": want a whole number above zero`},
		"volume-type throughput io1": {"volume-type", Settings{"to": "io1", "iops": "1000", "throughput": "500"}, `only gp3 has provisioned throughput, not io1`},
		"volume-type low throughput": {"volume-type", Settings{"to": "gp3", "throughput": "100"}, `throughput 100: gp3 takes at least 125 MiB/s`},
		"image":                      {"image", Settings{"ami": "ami-0123456789abcdef0", "note": "last month's"}, ""},
		"image short ami":            {"image", Settings{"ami": "ami-12345678"}, ""},
		"image bad ami":              {"image", Settings{"ami": "debian-12"}, `image: ami "debian-12": want an image id`},
		"image unknown setting":      {"image", Settings{"region": "eu-west-1"}, `image: unknown setting "region" (image takes: ami, note)`},
	}
	for name, u := range uu {
		t.Run(name, func(t *testing.T) {
			k, err := New(u.knob, u.s)
			if u.err == "" {
				if err != nil || k == nil {
					t.Fatalf("New(%q, %v) = %v, %v; want a knob", u.knob, u.s, k, err)
				}
				return
			}
			wantErr(t, err, u.err)
		})
	}
}

func TestLines(t *testing.T) {
	got := lines("\n  Stop the database\r\nBoot the old image  \n\n")
	want := []string{"Stop the database", "Boot the old image"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("lines = %q, want %q", got, want)
	}
}
