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
	var b bytes.Buffer
	b.WriteByte('{')
	n := 0
	member := func(key string, v any) error {
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		k, _ := json.Marshal(key)
		b.Write(k)
		b.WriteByte(':')
		data, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("dataschema: %s: %w", key, err)
		}
		b.Write(data)
		return nil
	}
	if err := member("type", s.Type); err != nil {
		return nil, err
	}
	if s.Description != "" {
		if err := member("description", s.Description); err != nil {
			return nil, err
		}
	}
	if s.Type == Object {
		props := make(orderedProps, len(s.Properties))
		copy(props, s.Properties)
		if err := member("properties", props); err != nil {
			return nil, err
		}
		if len(s.Required) > 0 {
			if err := member("required", s.Required); err != nil {
				return nil, err
			}
		}
		if s.AdditionalProperties != nil {
			if err := member("additionalProperties", *s.AdditionalProperties); err != nil {
				return nil, err
			}
		}
	}
	if s.Items != nil {
		if err := member("items", s.Items); err != nil {
			return nil, err
		}
	}
	if len(s.Enum) > 0 {
		if err := member("enum", s.Enum); err != nil {
			return nil, err
		}
	}
	if s.Default != nil {
		if err := member("default", s.Default); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// orderedProps marshals properties as an object in declaration order.
type orderedProps []Property

func (ps orderedProps) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(p.Name)
		b.Write(k)
		b.WriteByte(':')
		data, err := p.Schema.MarshalJSON()
		if err != nil {
			return nil, err
		}
		b.Write(data)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
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
