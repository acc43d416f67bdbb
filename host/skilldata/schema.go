package skilldata

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/dataschema"
	"github.com/a2agen/a2agen/runtime"
)

// MediaType is the media type of the data parts of typed skills.
const MediaType = "application/json"

// Schema is the data of one skill in one direction: its JSON Schema and the
// Go type T generated from it.
type Schema[T any] struct {
	skill     string // the skill's id
	direction string // "input" or "output"
	schema    *dataschema.Schema
}

// MustSchema returns the Schema of a skill's input or output (direction)
// from the schema's JSON text, as a2a-scaffold generates it. It panics on a
// schema outside the subset: generated code holds only schemas the
// manifest validated.
func MustSchema[T any](skill, direction, schemaJSON string) *Schema[T] {
	s, err := dataschema.Parse([]byte(schemaJSON))
	if err != nil {
		panic(fmt.Sprintf("skilldata: skill %q: %s schema: %v", skill, direction, err))
	}
	return &Schema[T]{skill: skill, direction: direction, schema: s}
}

// Skill returns the id of the skill the schema belongs to.
func (s *Schema[T]) Skill() string { return s.skill }

// Decode validates a JSON value (the data of a part) against the schema and
// decodes it into T, with the defaults of absent optional properties
// filled in. A value that does not match is an InvalidParams error listing
// every problem with its path from "data" (data.city: required), also as
// field violations.
func (s *Schema[T]) Decode(v *structpb.Value) (T, error) {
	var plain any
	if v != nil {
		plain = v.AsInterface()
	}
	return s.decode(plain, "the data")
}

// DecodeJSON is Decode for JSON text, such as a message's text that holds
// the input as JSON. Text that is no JSON is InvalidParams too.
func (s *Schema[T]) DecodeJSON(text []byte) (T, error) {
	var zero T
	dec := json.NewDecoder(bytes.NewReader(text))
	var plain any
	if err := dec.Decode(&plain); err != nil {
		return zero, runtime.InvalidParams(fmt.Sprintf("skill %q: the text is not the JSON of its %s (%v); send the %s as a data part (%s)", s.skill, s.direction, err, s.direction, MediaType))
	}
	if dec.More() {
		return zero, runtime.InvalidParams(fmt.Sprintf("skill %q: the text is not the JSON of its %s (more than one value); send the %s as a data part (%s)", s.skill, s.direction, s.direction, MediaType))
	}
	return s.decode(plain, "the JSON text")
}

func (s *Schema[T]) decode(plain any, what string) (T, error) {
	var zero T
	if vs := s.schema.Validate(plain, "data"); len(vs) > 0 {
		return zero, s.invalid(what, vs)
	}
	data, err := json.Marshal(s.schema.WithDefaults(plain))
	if err != nil {
		return zero, runtime.Internal(fmt.Errorf("skilldata: skill %q: %w", s.skill, err))
	}
	var out T
	if err := json.Unmarshal(data, &out); err != nil {
		// The value matched the schema T was generated from: T and the
		// schema disagree (an edited generated file?).
		return zero, runtime.Internal(fmt.Errorf("skilldata: skill %q: the %s matched its schema but does not decode into %T (regenerate the project): %w", s.skill, s.direction, out, err))
	}
	return out, nil
}

// invalid is the InvalidParams error for violations.
func (s *Schema[T]) invalid(what string, vs []dataschema.Violation) *runtime.Error {
	msgs := make([]string, len(vs))
	fv := make([]runtime.FieldViolation, len(vs))
	for i, v := range vs {
		msgs[i] = v.String()
		fv[i] = runtime.FieldViolation{Field: v.Path, Description: v.Message}
	}
	return runtime.InvalidParams(fmt.Sprintf("skill %q: %s does not match its %s schema: %s", s.skill, what, s.direction, strings.Join(msgs, "; ")), fv...)
}

// Value encodes v as a JSON value after checking it against the schema: a
// value that does not match is an Internal error (a bug in the skill, not
// in the request) naming every problem.
func (s *Schema[T]) Value(v T) (*structpb.Value, error) {
	data, vs, err := s.encode(v)
	if err != nil {
		return nil, err
	}
	if len(vs) > 0 {
		msgs := make([]string, len(vs))
		for i, v := range vs {
			msgs[i] = v.String()
		}
		return nil, runtime.Internal(fmt.Errorf("skilldata: skill %q: its %s does not match the %s schema of its card: %s", s.skill, s.direction, s.direction, strings.Join(msgs, "; ")))
	}
	value := new(structpb.Value)
	if err := protojson.Unmarshal(data, value); err != nil {
		return nil, runtime.Internal(fmt.Errorf("skilldata: skill %q: encoding its %s: %w", s.skill, s.direction, err))
	}
	return value, nil
}

// encode marshals v and checks the result against the schema.
func (s *Schema[T]) encode(v T) ([]byte, []dataschema.Violation, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, nil, runtime.Internal(fmt.Errorf("skilldata: skill %q: encoding its %s: %w", s.skill, s.direction, err))
	}
	var plain any
	if err := json.Unmarshal(data, &plain); err != nil {
		return nil, nil, runtime.Internal(fmt.Errorf("skilldata: skill %q: encoding its %s: %w", s.skill, s.direction, err))
	}
	// A nil slice is meant as an empty array.
	plain = s.schema.WithEmptyArrays(plain)
	if data, err = json.Marshal(plain); err != nil {
		return nil, nil, runtime.Internal(fmt.Errorf("skilldata: skill %q: encoding its %s: %w", s.skill, s.direction, err))
	}
	return data, s.schema.Validate(plain, "data"), nil
}

// Part returns v as a data part (application/json), checked against the
// schema as Value does.
func (s *Schema[T]) Part(v T) (*a2av1.Part, error) {
	value, err := s.Value(v)
	if err != nil {
		return nil, err
	}
	return &a2av1.Part{Content: &a2av1.Part_Data{Data: value}, MediaType: MediaType}, nil
}

// Artifact returns an artifact holding v as one data part; an empty id is
// replaced by a generated one when it is sent through server.Events.
func (s *Schema[T]) Artifact(id string, v T) (*a2av1.Artifact, error) {
	p, err := s.Part(v)
	if err != nil {
		return nil, err
	}
	return &a2av1.Artifact{ArtifactId: id, Parts: []*a2av1.Part{p}}, nil
}

// Ptr returns a pointer to v, for the optional fields of generated types
// (Days: skilldata.Ptr(3)).
func Ptr[V any](v V) *V { return &v }
