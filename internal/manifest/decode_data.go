package manifest

import (
	"fmt"
	"mime"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/a2agen/a2agen/internal/dataschema"
)

// DataMediaType is the media type of the data parts typed skills take and
// give.
const DataMediaType = "application/json"

// data decodes a skill's input or output: the schema, checked against the
// rules of the dataschema subset with each problem reported at its place in
// the file, and the examples, each checked against the schema.
func (d *decoder) data(n *yaml.Node, path string) *Data {
	f, ok := d.mapping(n, path, dataShape)
	if !ok {
		return nil
	}
	sn := f.get("schema")
	if sn == nil {
		return nil // reported as required
	}
	s := d.schema(sn, f.sub("schema"))
	if s == nil {
		return nil
	}
	return &Data{Pos: Position{deref(n).Line, deref(n).Column}, Schema: s, Examples: d.examples(f, s)}
}

// schema decodes the schema of a skill's data (sn, at path): a schema of
// the dataschema subset whose type is object and whose names give
// distinct Go names; nil when it is not one, each problem reported.
func (d *decoder) schema(sn *yaml.Node, path string) *dataschema.Schema {
	v, ok := d.orderedValue(sn, path)
	if !ok {
		return nil
	}
	s, problems := dataschema.FromValue(v)
	for _, p := range problems {
		d.errorf(walk(sn, p.Path), dataschema.FormatPath(path, p.Path), "%s", schemaProblem(p))
	}
	if len(problems) > 0 || s == nil {
		return nil
	}
	if s.Type != dataschema.Object {
		d.errorf(walk(sn, []any{"type"}), path+".type", "the data of a skill is an object (its properties become the fields of a Go struct), got type %s; make it a property of an object", s.Type)
		return nil
	}
	d.goNames(sn, path, s)
	return s
}

// schemaProblem is the message of a problem of a schema, with a
// did-you-mean for an unknown keyword.
func schemaProblem(p dataschema.Problem) string {
	if p.UnknownKey == "" {
		return p.Message
	}
	if best := suggest(p.UnknownKey, dataschema.Keywords); best != "" {
		return fmt.Sprintf("unknown keyword %q; did you mean %q?", p.UnknownKey, best)
	}
	return p.Message
}

// examples reads the examples of a skill's data, keeping those that match
// its schema s and reporting the others.
func (d *decoder) examples(f fields, s *dataschema.Schema) []any {
	var out []any
	for i, e := range f.items("examples") {
		p := index(f.sub("examples"), i)
		ev, ok := d.jsonValue(e, p)
		if !ok {
			continue
		}
		vs := s.Validate(ev, p)
		for _, v := range vs {
			d.errorf(e, v.Path, "example does not match the schema: %s", v.Message)
		}
		if len(vs) == 0 {
			out = append(out, ev)
		}
	}
	return out
}

// walk follows a path of keys and indices from a node, returning the
// deepest node it reaches (keys report the key's node, so that an unknown
// keyword is shown where it is written).
func walk(n *yaml.Node, path []any) *yaml.Node {
	n = deref(n)
	for i, seg := range path {
		next, stop := step(n, path, i, seg)
		if stop {
			return next
		}
		n = next
	}
	return n
}

// step is one step of walk, from n along path[i] (seg): the node reached,
// and stop when walk ends there (the segment is not found, or names a key
// that is reported at the key itself).
func step(n *yaml.Node, path []any, i int, seg any) (next *yaml.Node, stop bool) {
	switch seg := seg.(type) {
	case string:
		if n.Kind != yaml.MappingNode {
			return n, true
		}
		for j := 0; j+1 < len(n.Content); j += 2 {
			if deref(n.Content[j]).Value != seg {
				continue
			}
			if i == len(path)-1 && !isKnownKeyword(seg) && !isUnderProperties(path, i) {
				return n.Content[j], true
			}
			return deref(n.Content[j+1]), false
		}
		return n, true
	case int:
		if n.Kind != yaml.SequenceNode || seg >= len(n.Content) {
			return n, true
		}
		return deref(n.Content[seg]), false
	}
	return n, false
}

func isKnownKeyword(k string) bool { return slices.Contains(dataschema.Keywords, k) }

// isUnderProperties reports whether path[i] is a property name (it follows
// "properties").
func isUnderProperties(path []any, i int) bool {
	return i > 0 && path[i-1] == "properties"
}

// goNames checks that the properties of every object of s give distinct Go
// field names, and the values of every enum distinct constant names, as
// a2a-scaffold derives them (dataschema.GoName).
func (d *decoder) goNames(n *yaml.Node, path string, s *dataschema.Schema) {
	d.goNamesAt(n, nil, path, s)
}

func (d *decoder) goNamesAt(root *yaml.Node, at []any, path string, s *dataschema.Schema) {
	switch s.Type {
	case dataschema.Object:
		seen := map[string]string{}
		for _, p := range s.Properties {
			name := dataschema.GoName(p.Name)
			pp := append(append([]any(nil), at...), "properties", p.Name)
			if other, dup := seen[name]; dup {
				d.errorf(walk(root, pp), dataschema.FormatPath(path, pp), "property %q and %q would both be Go field %s; rename one of them", other, p.Name, name)
				continue
			}
			seen[name] = p.Name
			d.goNamesAt(root, pp, path, p.Schema)
		}
	case dataschema.Array:
		d.goNamesAt(root, append(append([]any(nil), at...), "items"), path, s.Items)
	}
}

// acceptsData reports whether media types list one that data parts
// (application/json) match: application/json itself, application/* or
// */*, parameters ignored.
func acceptsData(modes []string) bool {
	for _, m := range modes {
		mt, _, err := mime.ParseMediaType(m)
		if err != nil {
			continue
		}
		mt = strings.ToLower(mt)
		if mt == DataMediaType || mt == "application/*" || mt == "*/*" {
			return true
		}
	}
	return false
}

// dataModes checks that a skill with input or output data lists
// application/json among its (effective) input or output modes.
func (d *decoder) dataModes(m *Manifest, s Skill, path string, node *yaml.Node) {
	in, out := s.InputModes, s.OutputModes
	inKey, outKey := "inputModes", "outputModes"
	if len(in) == 0 {
		in, inKey = m.DefaultInputModes, "defaultInputModes"
	}
	if len(out) == 0 {
		out, outKey = m.DefaultOutputModes, "defaultOutputModes"
	}
	if s.Input != nil && !acceptsData(in) {
		d.errorf(posNode(s.Input.Pos, node), path+".input", "the skill takes data parts (%s) but %s (%s) does not list %s; add it to the skill's inputModes", DataMediaType, inKey, strings.Join(in, ", "), DataMediaType)
	}
	if s.Output != nil && !acceptsData(out) {
		d.errorf(posNode(s.Output.Pos, node), path+".output", "the skill gives data parts (%s) but %s (%s) does not list %s; add it to the skill's outputModes", DataMediaType, outKey, strings.Join(out, ", "), DataMediaType)
	}
}

// posNode is a node carrying only a position, for errors reported after the
// tree walk.
func posNode(p Position, fallback *yaml.Node) *yaml.Node {
	if p.Line == 0 {
		return fallback
	}
	return &yaml.Node{Line: p.Line, Column: p.Col}
}
