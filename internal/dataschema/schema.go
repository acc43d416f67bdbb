package dataschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"unicode"
)

// Type is a JSON Schema type of the subset.
type Type string

// The types of the subset ("null" and lists of types are not in it: an
// optional property is left out, not null).
const (
	Object  Type = "object"
	Array   Type = "array"
	String  Type = "string"
	Number  Type = "number"
	Integer Type = "integer"
	Boolean Type = "boolean"
)

// Types lists the types in documentation order.
var Types = []Type{Object, Array, String, Number, Integer, Boolean}

// Keywords are the JSON Schema keywords of the subset, in the order
// MarshalJSON writes them.
var Keywords = []string{"type", "description", "properties", "required", "additionalProperties", "items", "enum", "default"}

// MaxDepth bounds the nesting of schemas (objects and arrays in each other).
const MaxDepth = 32

// Schema is one schema of the subset. Which fields may be set depends on
// Type: Properties, Required and AdditionalProperties on objects, Items on
// arrays (where it is required), Enum on strings.
type Schema struct {
	Type        Type
	Description string
	// Properties of an object, in declaration order.
	Properties []Property
	// Required names properties an object must have.
	Required []string
	// AdditionalProperties is false when an object must have no property
	// besides Properties; nil (or true) allows them, as JSON Schema does.
	AdditionalProperties *bool
	// Items is the schema of every element of an array.
	Items *Schema
	// Enum lists the values a string may take; empty: any.
	Enum []string
	// Default is the value of an optional property the data leaves out
	// (JSON-compatible: map[string]any, []any, string, float64, bool); nil:
	// none.
	Default any
}

// Property is one named property of an object.
type Property struct {
	Name   string
	Schema *Schema
}

// IsRequired reports whether the object requires property name.
func (s *Schema) IsRequired(name string) bool { return slices.Contains(s.Required, name) }

// Property returns the schema of the named property, or nil.
func (s *Schema) Property(name string) *Schema {
	for _, p := range s.Properties {
		if p.Name == name {
			return p.Schema
		}
	}
	return nil
}

func (s *Schema) propertyNames() []string {
	names := make([]string, len(s.Properties))
	for i, p := range s.Properties {
		names[i] = p.Name
	}
	return names
}

// ClosedObject reports whether the object allows no property besides its
// Properties.
func (s *Schema) ClosedObject() bool {
	return s.AdditionalProperties != nil && !*s.AdditionalProperties
}

// MarshalJSON writes the schema as JSON Schema, keys in the order of
// Keywords and properties in declaration order, so that the output is
// byte-stable.
func (s *Schema) MarshalJSON() ([]byte, error) {
	return writeObject(s.members())
}

// jsonMember is one key and value of a JSON object written in order.
type jsonMember struct {
	key   string
	value any
}

// members are the schema's keywords that are set, in the order of
// Keywords.
func (s *Schema) members() []jsonMember {
	ms := []jsonMember{{"type", s.Type}}
	if s.Description != "" {
		ms = append(ms, jsonMember{"description", s.Description})
	}
	if s.Type == Object {
		ms = append(ms, jsonMember{"properties", orderedProps(s.Properties)})
		if len(s.Required) > 0 {
			ms = append(ms, jsonMember{"required", s.Required})
		}
		if s.AdditionalProperties != nil {
			ms = append(ms, jsonMember{"additionalProperties", *s.AdditionalProperties})
		}
	}
	if s.Items != nil {
		ms = append(ms, jsonMember{"items", s.Items})
	}
	if len(s.Enum) > 0 {
		ms = append(ms, jsonMember{"enum", s.Enum})
	}
	if s.Default != nil {
		ms = append(ms, jsonMember{"default", s.Default})
	}
	return ms
}

// writeObject writes the members as one JSON object, in their order.
func writeObject(ms []jsonMember) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		data, err := json.Marshal(m.value)
		if err != nil {
			return nil, fmt.Errorf("dataschema: %s: %w", m.key, err)
		}
		b.Write(data)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// orderedProps marshals properties as an object in declaration order.
type orderedProps []Property

func (ps orderedProps) MarshalJSON() ([]byte, error) {
	ms := make([]jsonMember, len(ps))
	for i, p := range ps {
		ms[i] = jsonMember{p.Name, p.Schema}
	}
	return writeObject(ms)
}

// Value returns the schema as JSON-compatible Go values (map[string]any
// and so on), for a google.protobuf.Struct.
func (s *Schema) Value() map[string]any {
	data, err := s.MarshalJSON()
	if err != nil {
		return nil
	}
	var v map[string]any
	_ = json.Unmarshal(data, &v)
	return v
}

// GoName is the exported Go identifier a2a-scaffold derives from a property
// name or an enum value: "city" gives City, "start-date" and "start_date"
// StartDate; "" when the text has no letter or digit. A leading digit gets
// a "V" before it.
func GoName(s string) string {
	var b []rune
	up := true
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			up = true
			continue
		}
		if up {
			r = unicode.ToUpper(r)
			up = false
		}
		b = append(b, r)
	}
	if len(b) > 0 && unicode.IsDigit(b[0]) {
		b = append([]rune{'V'}, b...)
	}
	return string(b)
}
