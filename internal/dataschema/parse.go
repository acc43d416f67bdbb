package dataschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
)

// Problem is one thing wrong with a schema, at the path of the value it is
// about: keys (string) and list indices (int) from the schema's root.
type Problem struct {
	Path    []any
	Message string
	// UnknownKey is set when the problem is a key that is no keyword of
	// the subset (Message then says so); callers may suggest a keyword.
	UnknownKey string
}

// notInSubset are JSON Schema keywords a schema may reasonably hold that
// the subset leaves out, with what to do instead.
var notInSubset = map[string]string{
	"$ref": "write the schema out in place", "$defs": "write the schemas out in place", "definitions": "write the schemas out in place",
	"oneOf": "", "anyOf": "", "allOf": "", "not": "", "if": "", "then": "", "else": "",
	"const": "use an enum of one value", "nullable": "leave the property out of required instead",
	"minimum": "check the range in the skill's code", "maximum": "check the range in the skill's code",
	"exclusiveMinimum": "check the range in the skill's code", "exclusiveMaximum": "check the range in the skill's code",
	"multipleOf": "", "minLength": "check the length in the skill's code", "maxLength": "check the length in the skill's code",
	"pattern": "check the text in the skill's code", "format": "check the text in the skill's code",
	"minItems": "check the length in the skill's code", "maxItems": "check the length in the skill's code",
	"uniqueItems": "", "minProperties": "", "maxProperties": "", "patternProperties": "", "propertyNames": "",
	"examples": "give examples next to schema (input.examples)", "title": "use description",
	"$schema": "leave it out: the subset is fixed", "$id": "leave it out",
}

// FromValue reads a schema from JSON-compatible Go values (what
// encoding/json or a YAML decoder gives: map[string]any, []any, string,
// float64, bool, nil) and checks every rule of the subset. It returns the
// schema (nil when the value is no schema at all) and every problem found.
func FromValue(v any) (*Schema, []Problem) {
	r := &reader{}
	s := r.schema(v, nil, 0)
	return s, r.problems
}

// Parse reads a schema from its JSON text (as MarshalJSON writes it),
// keeping the order of properties.
func Parse(data []byte) (*Schema, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	v, err := orderedJSON(dec)
	if err == nil && dec.More() {
		err = errors.New("more than one JSON value")
	}
	if err != nil {
		return nil, fmt.Errorf("dataschema: %w", err)
	}
	s, problems := FromValue(v)
	if len(problems) > 0 {
		msgs := make([]string, len(problems))
		for i, p := range problems {
			msgs[i] = FormatPath("schema", p.Path) + ": " + p.Message
		}
		return nil, fmt.Errorf("dataschema: %s", strings.Join(msgs, "; "))
	}
	return s, nil
}

// orderedJSON decodes one JSON value with objects as Members, in order.
func orderedJSON(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		var out Members
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := orderedJSON(dec)
			if err != nil {
				return nil, err
			}
			out = append(out, Member{Key: k.(string), Value: v})
		}
		_, err := dec.Token()
		return out, err
	case json.Delim('['):
		out := []any{}
		for dec.More() {
			v, err := orderedJSON(dec)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		_, err := dec.Token()
		return out, err
	}
	return tok, nil
}

// FormatPath writes a path as root.key[1].key; keys that are not plain
// names are quoted: root["a b"].
func FormatPath(root string, path []any) string {
	s := root
	for _, seg := range path {
		switch seg := seg.(type) {
		case int:
			s += fmt.Sprintf("[%d]", seg)
		case string:
			s = JoinKey(s, seg)
		}
	}
	return s
}

// isPlainName reports whether a key can follow a dot in a path as it is
// ("data.city"): letters, "_" and "-", and digits after the first.
func isPlainName(s string) bool {
	for i, r := range s {
		if !isASCIILetter(r) && r != '_' && r != '-' && (i == 0 || !isASCIIDigit(r)) {
			return false
		}
	}
	return s != ""
}

type reader struct {
	problems []Problem
}

func (r *reader) add(path []any, format string, args ...any) {
	r.problems = append(r.problems, Problem{Path: slices.Clone(path), Message: fmt.Sprintf(format, args...)})
}

func sub(path []any, seg any) []any { return append(slices.Clone(path), seg) }

func (r *reader) schema(v any, path []any, depth int) *Schema {
	m, order, ok := asObject(v)
	if !ok {
		r.add(path, "expected a schema (a mapping with a type), got %s", describe(v))
		return nil
	}
	if depth >= MaxDepth {
		r.add(path, "schemas nest more than %d levels deep", MaxDepth)
		return nil
	}
	r.unknownKeywords(order, path)
	t, ok := r.schemaType(m, path)
	if !ok {
		return nil
	}
	s := &Schema{Type: t}
	k := keywords{r: r, s: s, m: m, path: path}
	k.description()
	k.object(depth)
	k.items(depth)
	if k.only("enum", String) {
		r.enum(s, m["enum"], sub(path, "enum"))
	}
	if d, present := m["default"]; present {
		r.defaultValue(s, Plain(d), sub(path, "default"))
	}
	return s
}

// unknownKeywords reports each keyword that is not in the subset, saying
// what to do instead where the keyword is a known one of JSON Schema.
func (r *reader) unknownKeywords(order []string, path []any) {
	for _, k := range order {
		if slices.Contains(Keywords, k) {
			continue
		}
		if how, known := notInSubset[k]; known {
			msg := fmt.Sprintf("%q is not in the JSON Schema subset of typed skills (%s)", k, strings.Join(Keywords, ", "))
			if how != "" {
				msg += "; " + how
			}
			r.problems = append(r.problems, Problem{Path: sub(path, k), Message: msg})
			continue
		}
		r.problems = append(r.problems, Problem{Path: sub(path, k), UnknownKey: k,
			Message: fmt.Sprintf("unknown keyword %q (the subset has %s)", k, strings.Join(Keywords, ", "))})
	}
}

// schemaType reads the required type: one of Types, given as one string.
func (r *reader) schemaType(m map[string]any, path []any) (Type, bool) {
	switch t := m["type"].(type) {
	case nil:
		if _, present := m["type"]; present {
			r.add(sub(path, "type"), "expected a type (%s), got nothing", typeList())
		} else {
			r.add(path, "type: required (one of %s)", typeList())
		}
	case string:
		switch {
		case slices.Contains(Types, Type(t)):
			return Type(t), true
		case t == "null":
			r.add(sub(path, "type"), "type \"null\" is not in the subset; leave the property out of required instead")
		default:
			r.add(sub(path, "type"), "unknown type %q (want one of %s)", t, typeList())
		}
	case []any:
		r.add(sub(path, "type"), "a list of types is not in the subset; give one type (%s), and leave an optional property out of required", typeList())
	default:
		r.add(sub(path, "type"), "expected a type (%s), got %s", typeList(), describe(t))
	}
	return "", false
}

// keywords reads the keywords of one schema whose type is known.
type keywords struct {
	r    *reader
	s    *Schema
	m    map[string]any
	path []any
}

// only reports whether the keyword is present, refusing it where the
// schema's type is not t.
func (k keywords) only(key string, t Type) bool {
	if _, present := k.m[key]; !present {
		return false
	}
	if k.s.Type != t {
		k.r.add(sub(k.path, key), "%s applies to type %s only (this is %s)", key, t, k.s.Type)
		return false
	}
	return true
}

// description reads the schema's description, a string.
func (k keywords) description() {
	d, present := k.m["description"]
	if !present {
		return
	}
	if ds, ok := d.(string); ok {
		k.s.Description = ds
		return
	}
	k.r.add(sub(k.path, "description"), "expected a string, got %s", describe(d))
}

// items reads the schema of an array's elements, which an array requires.
func (k keywords) items(depth int) {
	if k.only("items", Array) {
		k.s.Items = k.r.schema(k.m["items"], sub(k.path, "items"), depth+1)
	} else if _, present := k.m["items"]; k.s.Type == Array && !present {
		k.r.add(k.path, "items: required for type array (the schema of every element)")
	}
}

// object reads properties, required (each a declared property) and
// additionalProperties.
func (k keywords) object(depth int) {
	var declared []string
	if k.only("properties", Object) {
		declared = k.r.properties(k.s, k.m["properties"], sub(k.path, "properties"), depth)
	}
	if k.only("required", Object) {
		k.r.required(k.s, k.m["required"], sub(k.path, "required"))
		for i, name := range k.s.Required {
			if !slices.Contains(declared, name) {
				k.r.add(sub(sub(k.path, "required"), i), "%q is not a property of this object (properties: %s)", name, listOrNone(declared))
			}
		}
	}
	if k.only("additionalProperties", Object) {
		if b, ok := k.m["additionalProperties"].(bool); ok {
			k.s.AdditionalProperties = &b
		} else {
			k.r.add(sub(k.path, "additionalProperties"), "expected true or false (schemas for extra properties are not in the subset), got %s", describe(k.m["additionalProperties"]))
		}
	}
}

// defaultValue keeps a default the schema accepts.
func (r *reader) defaultValue(s *Schema, d any, path []any) {
	if d == nil {
		r.add(path, "a default of nothing (null) is not in the subset; leave default out")
	} else if vs := s.Validate(d, ""); len(vs) > 0 {
		r.add(path, "the default does not match the schema: %s", vs[0].String())
	} else {
		s.Default = d
	}
}

// properties reads an object's properties and returns every name declared
// (also those whose schema has problems).
func (r *reader) properties(s *Schema, v any, path []any, depth int) []string {
	m, names, ok := asObject(v)
	if !ok {
		r.add(path, "expected a mapping of property names to schemas, got %s", describe(v))
		return nil
	}
	for _, name := range names {
		if err := checkPropertyName(name); err != nil {
			r.add(sub(path, name), "%v", err)
			continue
		}
		if ps := r.schema(m[name], sub(path, name), depth+1); ps != nil {
			s.Properties = append(s.Properties, Property{Name: name, Schema: ps})
		}
	}
	return names
}

// checkPropertyName accepts names a Go field can be derived from
// (CheckName), and no empty name.
func checkPropertyName(name string) error {
	if name == "" {
		return fmt.Errorf("property names must not be empty")
	}
	if err := CheckName(name); err != nil {
		return fmt.Errorf("property name %q %w (a Go field is named after it)", name, err)
	}
	return nil
}

func (r *reader) required(s *Schema, v any, path []any) {
	list, ok := v.([]any)
	if !ok {
		r.add(path, "expected a list of property names, got %s", describe(v))
		return
	}
	s.Required = r.distinctStrings(list, path, "a property name")
}

// distinctStrings reads a list of strings, each listed once; want says
// what an element must be.
func (r *reader) distinctStrings(list []any, path []any, want string) []string {
	var out []string
	for i, e := range list {
		str, ok := e.(string)
		if !ok {
			r.add(sub(path, i), "expected %s, got %s", want, describe(e))
			continue
		}
		if slices.Contains(out, str) {
			r.add(sub(path, i), "%q is listed twice", str)
			continue
		}
		out = append(out, str)
	}
	return out
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

func (r *reader) enum(s *Schema, v any, path []any) {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		r.add(path, "expected a list of at least one string, got %s", describe(v))
		return
	}
	s.Enum = r.distinctStrings(list, path, "a string (enums of the subset are of strings)")
}

func typeList() string {
	names := make([]string, len(Types))
	for i, t := range Types {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
}

// Members is a JSON object whose member order matters: FromValue keeps
// properties in this order (a map[string]any gives them sorted by name).
type Members []Member

// Member is one key and value of Members.
type Member struct {
	Key   string
	Value any
}

// asObject returns the members of an object (Members or map[string]any)
// by key, and the keys in order.
func asObject(v any) (map[string]any, []string, bool) {
	switch v := v.(type) {
	case map[string]any:
		keys := slices.Sorted(maps.Keys(v))
		return v, keys, true
	case Members:
		m := make(map[string]any, len(v))
		keys := make([]string, 0, len(v))
		for _, e := range v {
			if _, dup := m[e.Key]; !dup {
				keys = append(keys, e.Key)
			}
			m[e.Key] = e.Value
		}
		return m, keys, true
	}
	return nil, nil, false
}

// Plain turns Members, at any depth, into map[string]any.
func Plain(v any) any {
	switch v := v.(type) {
	case Members:
		m := make(map[string]any, len(v))
		for _, e := range v {
			m[e.Key] = Plain(e.Value)
		}
		return m
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = Plain(e)
		}
		return out
	}
	return v
}

// describe names the JSON type of a value for messages.
func describe(v any) string {
	switch v := v.(type) {
	case nil:
		return "nothing (null)"
	case bool:
		return fmt.Sprintf("a boolean (%t)", v)
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1e15 {
			return fmt.Sprintf("a number (%d)", int64(v))
		}
		return fmt.Sprintf("a number (%g)", v)
	case string:
		return fmt.Sprintf("a string (%q)", v)
	case []any:
		return "a list"
	case map[string]any, Members:
		return "a mapping"
	}
	return fmt.Sprintf("a %T", v)
}
