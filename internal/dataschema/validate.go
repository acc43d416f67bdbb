package dataschema

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
)

// MaxViolations bounds the problems Validate reports for one value.
const MaxViolations = 20

// maxExactInteger is the largest integer a JSON number (a double) holds
// exactly.
const maxExactInteger = 1 << 53

// Violation is one way a value does not match its schema.
type Violation struct {
	// Path names the value from the root given to Validate: data.city,
	// data.stops[2].name.
	Path    string
	Message string
}

func (v Violation) String() string {
	if v.Path == "" {
		return v.Message
	}
	return v.Path + ": " + v.Message
}

// Validate checks a JSON-compatible value (map[string]any, []any, string,
// float64, bool, nil, as encoding/json and structpb give them) against the
// schema, and returns up to MaxViolations problems, each with the path of
// the value from root. Properties the schema does not declare are allowed
// unless additionalProperties is false. Recursion follows the schema, so a
// deep value costs no more than the schema is deep.
func (s *Schema) Validate(v any, root string) []Violation {
	var out []Violation
	s.validate(v, root, &out)
	return out
}

func (s *Schema) validate(v any, path string, out *[]Violation) {
	if len(*out) >= MaxViolations {
		return
	}
	switch s.Type {
	case Object:
		s.validateObject(v, path, out)
	case Array:
		list, ok := v.([]any)
		if !ok {
			*out = appendLimited(*out, Violation{Path: path, Message: "expected an array, got " + describe(v)})
			return
		}
		for i, e := range list {
			if len(*out) >= MaxViolations {
				return
			}
			s.Items.validate(e, fmt.Sprintf("%s[%d]", path, i), out)
		}
	default:
		if msg := s.scalarProblem(v); msg != "" {
			*out = appendLimited(*out, Violation{Path: path, Message: msg})
		}
	}
}

// validateObject checks an object's required and declared properties and,
// when the object is closed, that it has no other.
func (s *Schema) validateObject(v any, path string, out *[]Violation) {
	m, ok := v.(map[string]any)
	if !ok {
		*out = appendLimited(*out, Violation{Path: path, Message: "expected an object, got " + describe(v)})
		return
	}
	for _, name := range s.Required {
		if _, present := m[name]; !present {
			*out = appendLimited(*out, Violation{Path: JoinKey(path, name), Message: "required"})
		}
	}
	for _, p := range s.Properties {
		if pv, present := m[p.Name]; present {
			p.Schema.validate(pv, JoinKey(path, p.Name), out)
		}
	}
	if s.ClosedObject() {
		for _, k := range s.undeclared(m) {
			*out = appendLimited(*out, Violation{Path: JoinKey(path, k), Message: fmt.Sprintf("unknown property (this object has %s)", listOrNone(s.propertyNames()))})
		}
	}
}

// undeclared are the members of the object m its schema does not declare,
// sorted.
func (s *Schema) undeclared(m map[string]any) []string {
	var out []string
	for k := range m {
		if s.Property(k) == nil {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// scalarProblem is what is wrong with v as a string, number, integer or
// boolean of the schema, "" when nothing is.
func (s *Schema) scalarProblem(v any) string {
	switch s.Type {
	case String:
		str, ok := v.(string)
		if !ok {
			return "expected a string, got " + describe(v)
		}
		if len(s.Enum) > 0 && !slices.Contains(s.Enum, str) {
			return fmt.Sprintf("%q is not one of %s", str, quoteAll(s.Enum))
		}
	case Number:
		if _, ok := v.(float64); !ok {
			return "expected a number, got " + describe(v)
		}
	case Integer:
		return integerProblem(v)
	case Boolean:
		if _, ok := v.(bool); !ok {
			return "expected true or false, got " + describe(v)
		}
	}
	return ""
}

// integerProblem is what keeps v from being an integer JSON numbers carry
// exactly, "" when nothing does.
func integerProblem(v any) string {
	f, ok := v.(float64)
	switch {
	case !ok:
		return "expected an integer, got " + describe(v)
	case f != math.Trunc(f) || math.IsInf(f, 0):
		return fmt.Sprintf("expected an integer, got %g", f)
	case f > maxExactInteger || f < -maxExactInteger:
		return fmt.Sprintf("integer %g is out of range (at most 2^53 in magnitude)", f)
	}
	return ""
}

func appendLimited(out []Violation, v Violation) []Violation {
	if len(out) >= MaxViolations {
		return out
	}
	return append(out, v)
}

// JoinKey appends an object key to a path such as root.key[1]: a plain
// name after a dot (none at the start), any other key quoted in brackets
// (root["a b"]), so that the path stays unambiguous. Schema paths, data
// violations and agent.yaml's errors all write keys this way.
func JoinKey(path, key string) string {
	if isPlainName(key) {
		if path == "" {
			return key
		}
		return path + "." + key
	}
	return fmt.Sprintf("%s[%q]", path, key)
}

func quoteAll(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// WithDefaults returns v with the default of every optional property that
// v leaves out filled in, at every depth the schema reaches; v itself is
// not modified. v should have passed Validate.
func (s *Schema) WithDefaults(v any) any {
	switch s.Type {
	case Object:
		return s.eachProperty(v, func(p *Schema, e any, present bool) (any, bool) {
			if present {
				return p.WithDefaults(e), true
			}
			if p.Default != nil {
				return p.WithDefaults(p.Default), true
			}
			return nil, false
		})
	case Array:
		return eachItem(v, s.Items.WithDefaults)
	}
	return v
}

// WithEmptyArrays returns v with null, where the schema wants an array,
// made an empty array: what a nil Go slice encodes to is no array, yet it
// is meant as one.
func (s *Schema) WithEmptyArrays(v any) any {
	switch s.Type {
	case Object:
		return s.eachProperty(v, func(p *Schema, e any, present bool) (any, bool) {
			if !present {
				return nil, false
			}
			return p.WithEmptyArrays(e), true
		})
	case Array:
		if v == nil {
			return []any{}
		}
		return eachItem(v, s.Items.WithEmptyArrays)
	}
	return v
}

// eachProperty is a copy of the object v (its members, not deeper) in which
// each property s declares is what f makes of it: f gets the property's
// schema, its value and whether v has it, and its false leaves the property
// out. Members s does not declare are kept as they are; v itself is returned
// when it is not an object.
func (s *Schema) eachProperty(v any, f func(p *Schema, e any, present bool) (any, bool)) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := make(map[string]any, len(m))
	maps.Copy(out, m)
	for _, p := range s.Properties {
		e, present := m[p.Name]
		if y, keep := f(p.Schema, e, present); keep {
			out[p.Name] = y
		}
	}
	return out
}

// eachItem is a copy of the array v with f applied to each element; v
// itself when it is not an array.
func eachItem(v any, f func(any) any) any {
	list, ok := v.([]any)
	if !ok {
		return v
	}
	out := make([]any, len(list))
	for i, e := range list {
		out[i] = f(e)
	}
	return out
}
