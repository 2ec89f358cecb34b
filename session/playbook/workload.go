package playbook

import (
	"encoding"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"

	"github.com/perfbisect/perfbisect/probe"
)

// specFields maps the yaml names of probe.Spec's fields to their index,
// and workloadFields lists the ones a playbook sets in workload: (not the
// duration, which is the playbook's and each step's). Both follow
// probe.Spec as it grows.
var specFields, workloadFields = func() (map[string]int, []string) {
	m := map[string]int{}
	var names []string
	t := reflect.TypeFor[probe.Spec]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if name == "" || name == "-" {
			continue
		}
		m[name] = i
		if name != "duration" {
			names = append(names, name)
		}
	}
	return m, names
}()

// workload sets the fields of spec the playbook gives; the others keep
// the defaults of its kind (probe.DefaultFor).
func (d *decoder) workload(f field, spec *probe.Spec) *Error {
	fs, err := d.fields(f.value, "workload", nil)
	if err != nil {
		return err
	}
	// The workload's kind sets the defaults of the others (sysbench's test,
	// tables and server), whatever order the fields come in.
	for _, wf := range fs {
		if v, ok := scalar(wf.value); ok && wf.key == "workload" {
			dir := spec.Dir
			*spec = probe.DefaultFor(v)
			spec.Dir = dir
		}
	}
	sv := reflect.ValueOf(spec).Elem()
	for _, wf := range fs {
		what := "workload." + wf.key
		if wf.key == "duration" {
			return d.at(wf.keyNode, "%s: a step runs for the playbook's duration (or its own duration:), set it there", what)
		}
		if _, ok := specFields[wf.key]; !ok {
			return d.at(wf.keyNode, "workload: unknown field %q (fields: %s)", wf.key, strings.Join(workloadFields, ", "))
		}
		if wf.value == nil {
			return d.at(wf.keyNode, "%s: want a value", what)
		}
		v := sv.Field(specFields[wf.key])
		s, ok := scalar(wf.value)
		if !ok {
			return d.at(wf.value, "%s: want a single value, found %s", what, describe(wf.value))
		}
		if u, ok := v.Addr().Interface().(encoding.TextUnmarshaler); ok {
			if err := u.UnmarshalText([]byte(s)); err != nil {
				return d.at(wf.value, "%s: %v", what, err)
			}
			continue
		}
		switch v.Kind() {
		case reflect.String:
			v.SetString(s)
		case reflect.Int, reflect.Int64:
			n, err := strconv.ParseInt(s, 10, 64)
			if _, isInt := wf.value.(*ast.IntegerNode); !isInt || err != nil || v.OverflowInt(n) {
				return d.at(wf.value, "%s: want a whole number, found %s", what, describe(wf.value))
			}
			v.SetInt(n)
		case reflect.Bool:
			b, isBool := wf.value.(*ast.BoolNode)
			if !isBool {
				return d.at(wf.value, "%s: want true or false, found %s", what, describe(wf.value))
			}
			v.SetBool(b.Value)
		default:
			return d.at(wf.value, "%s: cannot be set from a playbook", what)
		}
	}
	return nil
}

// flagName finds the field a probe.Spec.Validate message is about: it
// names its flag or field first ("--threads 0: want 1 to 1024 writers").
var flagName = regexp.MustCompile(`^(?:--)?([a-z_-]+)`)

// specError places a workload that does not validate at the field its
// message names when the playbook sets it, else at the workload key (or
// the top of the file, when all of it comes from the defaults).
func (d *decoder) specError(workload *field, err error) *Error {
	if workload == nil {
		return d.at(nil, "workload: %v", err)
	}
	var blame ast.Node = workload.keyNode
	if m := flagName.FindStringSubmatch(err.Error()); m != nil {
		name := strings.ReplaceAll(m[1], "-", "_")
		if fs, ferr := d.fields(workload.value, "workload", nil); ferr == nil {
			for _, wf := range fs {
				if wf.key == name {
					blame = wf.node()
				}
			}
		}
	}
	return d.at(blame, "workload: %v", err)
}
