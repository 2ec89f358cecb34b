package playbook

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"
)

// The playbook is read from goccy/go-yaml's AST rather than decoded into
// structs: every value keeps its node, so every problem — a bad size, a
// target that names no step, a cycle — is reported at its line and column,
// and unknown fields are caught at every level, with the fields allowed.

// decoder reads one playbook's AST and places its errors.
type decoder struct {
	file    string
	anchors []*ast.AnchorNode
}

// field is one key of a mapping: its name, the key node, and its value with
// tags, anchors and aliases resolved (nil when the value is empty).
type field struct {
	key     string
	keyNode ast.Node
	value   ast.Node
}

// at places a message at a node.
func (d *decoder) at(n ast.Node, format string, args ...any) *Error {
	line, col := position(n)
	return &Error{File: d.file, Line: line, Column: col, Msg: fmt.Sprintf(format, args...)}
}

// node is the node to blame for a field's value: the value itself, or its
// key when the value is empty.
func (f field) node() ast.Node {
	if f.value != nil {
		return f.value
	}
	return f.keyNode
}

// position is where a node starts, 1-based. A block mapping's own token is
// the colon of its first pair, so it is placed at its first key instead.
func position(n ast.Node) (line, col int) {
	var tk *token.Token
	switch v := n.(type) {
	case nil:
	case *ast.DocumentNode:
		if v.Body != nil {
			return position(v.Body)
		}
		tk = v.Start
	case *ast.MappingNode:
		if len(v.Values) > 0 && !v.IsFlowStyle {
			return position(v.Values[0])
		}
		tk = v.Start
	case *ast.MappingValueNode:
		if v.Key != nil {
			return position(v.Key)
		}
		tk = v.Start
	default:
		tk = n.GetToken()
	}
	if tk == nil || tk.Position == nil {
		return 1, 1
	}
	return max(tk.Position.Line, 1), max(tk.Position.Column, 1)
}

// syntaxError places an error of goccy's parser at its token, without the
// source excerpt goccy adds: the caller shows its own.
func (d *decoder) syntaxError(err error) *Error {
	var ye yaml.Error
	if !errors.As(err, &ye) {
		return &Error{File: d.file, Line: 1, Column: 1, Msg: err.Error()}
	}
	msg := ye.GetMessage()
	if strings.Contains(msg, "mapping value is not allowed in this context") {
		msg += ` (text that holds ": " must be quoted, like title: "Data: on tmpfs")`
	}
	if strings.Contains(msg, "tab character") {
		msg += " (indent with spaces)"
	}
	line, col := 1, 1
	if tk := ye.GetToken(); tk != nil && tk.Position != nil {
		line, col = max(tk.Position.Line, 1), max(tk.Position.Column, 1)
	}
	return &Error{File: d.file, Line: line, Column: col, Msg: msg}
}

// collectAnchors records every anchor of the document, in order, so an
// alias can be resolved to the latest anchor of its name before it.
func (d *decoder) collectAnchors(n ast.Node) {
	ast.Walk((*anchors)(&d.anchors), n)
}

// anchors gathers the anchors ast.Walk meets: it walks depth first, key
// before value, which is the order they are written in.
type anchors []*ast.AnchorNode

func (as *anchors) Visit(n ast.Node) ast.Visitor {
	if a, ok := n.(*ast.AnchorNode); ok {
		*as = append(*as, a)
	}
	return as
}

// maxIndirections bounds the chains of tags, anchors, aliases and merge
// keys followed for one value, so no file can make the reader loop.
const maxIndirections = 32

// resolve strips tags and anchors and follows aliases; an empty value
// (null, or nothing) is nil.
func (d *decoder) resolve(n ast.Node) (ast.Node, *Error) {
	for range maxIndirections {
		switch v := n.(type) {
		case nil, *ast.NullNode:
			return nil, nil
		case *ast.TagNode:
			n = v.Value
		case *ast.AnchorNode:
			n = v.Value
		case *ast.AliasNode:
			a := d.anchor(v)
			if a == nil {
				return nil, d.at(v, "alias *%s: no anchor &%s before it", aliasName(v), aliasName(v))
			}
			n = a.Value
		default:
			return n, nil
		}
	}
	return nil, d.at(n, "aliases nested more than %d deep", maxIndirections)
}

func aliasName(a *ast.AliasNode) string {
	if a.Value == nil || a.Value.GetToken() == nil {
		return ""
	}
	return a.Value.GetToken().Value
}

// anchor finds the anchor an alias refers to: the last one of its name
// that starts before the alias.
func (d *decoder) anchor(a *ast.AliasNode) *ast.AnchorNode {
	name := aliasName(a)
	line, col := position(a)
	var found *ast.AnchorNode
	for _, an := range d.anchors {
		if an.Name == nil || an.Name.GetToken() == nil || an.Name.GetToken().Value != name {
			continue
		}
		l, c := position(an)
		if l < line || l == line && c < col {
			found = an
		}
	}
	return found
}

// fields reads a mapping, resolving merge keys (<<: *defaults), and
// rejects keys not in allowed (nil allows any). what names the mapping in
// messages. An empty value is a mapping without fields.
func (d *decoder) fields(n ast.Node, what string, allowed []string) ([]field, *Error) {
	var out []field
	seen := map[string]ast.Node{}
	if err := d.collectFields(n, what, allowed, seen, &out, false, 0); err != nil {
		return nil, err
	}
	return out, nil
}

func (d *decoder) collectFields(n ast.Node, what string, allowed []string, seen map[string]ast.Node, out *[]field, merged bool, depth int) *Error {
	if depth > maxIndirections {
		return d.at(n, "merge keys (<<) nested more than %d deep", maxIndirections)
	}
	v, err := d.resolve(n)
	if err != nil || v == nil {
		return err
	}
	m, ok := v.(*ast.MappingNode)
	if !ok {
		return d.at(v, "%s: want a mapping (key: value lines), found %s", what, describe(v))
	}
	var merges []*ast.MappingValueNode
	for _, mv := range m.Values {
		if mv == nil {
			continue
		}
		if _, isMerge := mv.Key.(*ast.MergeKeyNode); isMerge {
			// Merged fields yield to the mapping's own, wherever they appear.
			merges = append(merges, mv)
			continue
		}
		key, keyNode, err := d.key(mv)
		if err != nil {
			return err
		}
		if first, dup := seen[key]; dup {
			if merged {
				continue
			}
			l, _ := position(first)
			return d.at(keyNode, "%s: %s is given twice (first on line %d)", what, key, l)
		}
		if allowed != nil && !slices.Contains(allowed, key) {
			return d.at(keyNode, "%s: unknown field %q (fields: %s)", what, key, strings.Join(allowed, ", "))
		}
		value, err := d.resolve(mv.Value)
		if err != nil {
			return err
		}
		seen[key] = keyNode
		*out = append(*out, field{key: key, keyNode: keyNode, value: value})
	}
	for _, mv := range merges {
		src, err := d.resolve(mv.Value)
		if err != nil {
			return err
		}
		srcs := []ast.Node{src}
		if seq, ok := src.(*ast.SequenceNode); ok {
			srcs = seq.Values
		}
		for _, s := range srcs {
			if err := d.collectFields(s, what, allowed, seen, out, true, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// key reads the key of a pair as a field name.
func (d *decoder) key(mv *ast.MappingValueNode) (string, ast.Node, *Error) {
	var k ast.Node = mv.Key
	if mk, ok := k.(*ast.MappingKeyNode); ok { // "? key"
		k = mk.Value
	}
	if k == nil {
		return "", mv, d.at(mv, "want a field name before the colon")
	}
	v, err := d.resolve(k)
	if err != nil {
		return "", k, err
	}
	s, ok := scalar(v)
	if !ok || s == "" {
		return "", k, d.at(k, "want a field name, found %s", describe(v))
	}
	return s, k, nil
}

// scalar is the text of a scalar node: a string without its quotes, a
// number or boolean as written (so mode: off stays "off").
func scalar(n ast.Node) (string, bool) {
	switch v := n.(type) {
	case *ast.StringNode:
		return v.Value, true
	case *ast.LiteralNode:
		if v.Value == nil {
			return "", true
		}
		return v.Value.Value, true
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.InfinityNode, *ast.NanNode:
		if tk := n.GetToken(); tk != nil {
			return tk.Value, true
		}
	}
	return "", false
}

// text reads a field as text, trimmed; ok is false when it is empty.
func (d *decoder) text(f field, what string) (s string, ok bool, err *Error) {
	if f.value == nil {
		return "", false, nil
	}
	s, isScalar := scalar(f.value)
	if !isScalar {
		return "", false, d.at(f.value, "%s: want text, found %s", what, describe(f.value))
	}
	s = strings.TrimSpace(s)
	return s, s != "", nil
}

// line reads a field as one line of text.
func (d *decoder) line(f field, what string) (string, bool, *Error) {
	s, ok, err := d.text(f, what)
	if err == nil && strings.ContainsAny(s, "\r\n") {
		return "", false, d.at(f.value, "%s: want one line of text", what)
	}
	return s, ok, err
}

// required reads a field that must say something, with read (d.line or
// d.text); want is what an empty one should have said.
func (d *decoder) required(read func(field, string) (string, bool, *Error), f field, what, want string) (string, *Error) {
	s, ok, err := read(f, what)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", d.at(f.node(), "%s: want %s", what, want)
	}
	return s, nil
}

// describe names what a node is, for "want X, found Y".
func describe(n ast.Node) string {
	switch n.(type) {
	case nil:
		return "nothing"
	case *ast.MappingNode:
		return "a mapping"
	case *ast.SequenceNode:
		return "a list"
	}
	if s, ok := scalar(n); ok {
		return fmt.Sprintf("%q", s)
	}
	if tk := n.GetToken(); tk != nil {
		return fmt.Sprintf("%q", tk.Value)
	}
	return n.Type().YAMLName()
}
