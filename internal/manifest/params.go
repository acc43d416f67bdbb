package manifest

import (
	"math"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/a2agen/a2agen/internal/dataschema"
)

// maxExactInteger is the largest integer a JSON number (an IEEE-754 double)
// holds exactly; extension params become a google.protobuf.Struct, whose
// numbers are doubles.
const maxExactInteger = 1 << 53

// maxParamValues bounds the values of all extension params together, after
// aliases are expanded: a few lines of nested aliases can otherwise expand
// exponentially ("billion laughs").
const maxParamValues = 100_000

// jsonValue converts free-form YAML (extension params, example data) into
// JSON-compatible Go values: map[string]any, []any, string, float64, bool
// and nil.
func (d *decoder) jsonValue(n *yaml.Node, path string) (any, bool) {
	return d.value(n, path, false)
}

// orderedValue is jsonValue with mappings as dataschema.Members, in file
// order (schemas: properties keep their order).
func (d *decoder) orderedValue(n *yaml.Node, path string) (any, bool) {
	return d.value(n, path, true)
}

func (d *decoder) value(n *yaml.Node, path string, ordered bool) (any, bool) {
	d.paramValues++
	if d.paramValues > maxParamValues {
		if d.paramValues == maxParamValues+1 {
			d.errorf(n, path, "extension params, schemas and examples hold more than %d values (after expanding aliases)", maxParamValues)
		}
		return nil, false
	}
	n = deref(n)
	switch n.Kind {
	case yaml.MappingNode:
		members, ok := d.members(n, path, ordered)
		if ordered {
			return members, ok
		}
		out := make(map[string]any, len(members))
		for _, m := range members {
			out[m.Key] = m.Value
		}
		return out, ok
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		ok := true
		for i, e := range n.Content {
			v, vok := d.value(e, index(path, i), ordered)
			ok = ok && vok
			out = append(out, v)
		}
		return out, ok
	}
	return d.scalarValue(n, path)
}

// scalarValue is a scalar as JSON has it: null, a boolean, a number that a
// double holds exactly, or text kept as written (strings, timestamps,
// binary).
func (d *decoder) scalarValue(n *yaml.Node, path string) (any, bool) {
	switch n.ShortTag() {
	case "!!null":
		return nil, true
	case "!!bool":
		var b bool
		_ = n.Decode(&b)
		return b, true
	case "!!int":
		return d.integerValue(n, path)
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			d.errorf(n, path, "%s is not a JSON number", n.Value)
			return nil, false
		}
		return f, true
	}
	return n.Value, true
}

// integerValue is an integer as a JSON number, which holds it exactly only
// up to 2^53 in magnitude.
func (d *decoder) integerValue(n *yaml.Node, path string) (any, bool) {
	i, err := strconv.ParseInt(n.Value, 0, 64)
	if err != nil {
		var v int64
		if n.Decode(&v) != nil {
			d.errorf(n, path, "integer %s does not fit a JSON number exactly", n.Value)
			return nil, false
		}
		i = v
	}
	if i > maxExactInteger || i < -maxExactInteger {
		d.errorf(n, path, "integer %s does not fit a JSON number exactly; quote it to keep it as a string", n.Value)
		return nil, false
	}
	return float64(i), true
}

// members converts a mapping into dataschema.Members, keeping key order
// (a key seen twice is reported and its first value kept); ordered is how
// the values are converted in turn.
func (d *decoder) members(n *yaml.Node, path string, ordered bool) (dataschema.Members, bool) {
	var out dataschema.Members
	seen := map[string]bool{}
	ok := true
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := deref(n.Content[i])
		if k.Kind != yaml.ScalarNode || k.ShortTag() == "!!null" {
			d.errorf(k, path, "keys must be strings, got %s", describe(k))
			ok = false
			continue
		}
		p := join(path, k.Value)
		if seen[k.Value] {
			d.errorf(k, p, "duplicate key")
			ok = false
			continue
		}
		seen[k.Value] = true
		v, vok := d.value(n.Content[i+1], p, ordered)
		ok = ok && vok
		out = append(out, dataschema.Member{Key: k.Value, Value: v})
	}
	return out, ok
}
