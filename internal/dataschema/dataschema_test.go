package dataschema

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const tripSchema = `{"type":"object","description":"A trip.","properties":{"city":{"type":"string","enum":["Lisbon","Oslo"]},"days":{"type":"integer","default":2},"stops":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"hours":{"type":"number"}},"required":["name"],"additionalProperties":false}},"flexible":{"type":"boolean"}},"required":["city"]}`

func mustParse(t *testing.T, s string) *Schema {
	t.Helper()
	sc, err := Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestValidateNamesEveryPath(t *testing.T) {
	s := mustParse(t, tripSchema)
	for _, tc := range []struct {
		data string
		want []string
	}{
		{`{"city":"Lisbon"}`, nil},
		{`{"city":"Lisbon","days":3,"stops":[{"name":"a","hours":1.5}],"flexible":true,"other":1}`, nil},
		{`{}`, []string{"data.city: required"}},
		{`[]`, []string{"data: expected an object, got a list"}},
		{`{"city":"Paris","days":2.5}`, []string{`data.city: "Paris" is not one of "Lisbon", "Oslo"`, "data.days: expected an integer, got 2.5"}},
		{`{"city":"Oslo","days":"3"}`, []string{`data.days: expected an integer, got a string ("3")`}},
		{`{"city":"Oslo","stops":[{"name":"a"},{"hours":1,"x":2}]}`, []string{"data.stops[1].name: required", "data.stops[1].x: unknown property (this object has name, hours)"}},
		{`{"city":"Oslo","flexible":"yes"}`, []string{`data.flexible: expected true or false, got a string ("yes")`}},
		{`{"city":"Oslo","days":1e300}`, []string{"data.days: integer 1e+300 is out of range (at most 2^53 in magnitude)"}},
	} {
		var got []string
		for _, v := range s.Validate(decode(t, tc.data), "data") {
			got = append(got, v.String())
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.data, diff)
		}
	}
}

func TestWithDefaults(t *testing.T) {
	s := mustParse(t, tripSchema)
	got := s.WithDefaults(decode(t, `{"city":"Oslo"}`))
	if diff := cmp.Diff(decode(t, `{"city":"Oslo","days":2}`), got); diff != "" {
		t.Error(diff)
	}
}

// TestWithEmptyArrays: null where the schema wants an array becomes [], at
// every depth; an absent array stays absent, members the schema does not
// declare are kept, and the value given is not modified.
func TestWithEmptyArrays(t *testing.T) {
	s := mustParse(t, `{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"}},"legs":{"type":"array","items":{"type":"object","properties":{"stops":{"type":"array","items":{"type":"string"}}}}},"notes":{"type":"array","items":{"type":"string"}}}}`)
	in := decode(t, `{"tags":null,"legs":[{"stops":null},{"stops":["a"]}],"extra":null}`)
	got := s.WithEmptyArrays(in)
	if diff := cmp.Diff(decode(t, `{"tags":[],"legs":[{"stops":[]},{"stops":["a"]}],"extra":null}`), got); diff != "" {
		t.Errorf("WithEmptyArrays (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(decode(t, `{"tags":null,"legs":[{"stops":null},{"stops":["a"]}],"extra":null}`), in); diff != "" {
		t.Errorf("WithEmptyArrays modified its argument (-want +got):\n%s", diff)
	}
}

func TestMarshalRoundTrip(t *testing.T) {
	v := Members{{"type", "object"}, {"properties", Members{{"z", Members{{"type", "string"}}}, {"a", Members{{"type", "integer"}, {"default", 1.0}}}}}, {"required", []any{"z"}}}
	s, problems := FromValue(v)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"integer","default":1}},"required":["z"]}`
	if string(data) != want {
		t.Errorf("got  %s\nwant %s", data, want)
	}
	if _, err := Parse(data); err != nil {
		t.Error(err)
	}
}

func TestSchemaProblems(t *testing.T) {
	for _, tc := range []struct {
		schema string
		want   string
	}{
		{`{}`, "schema: type: required (one of object, array, string, number, integer, boolean)"},
		{`{"type":"null"}`, `schema.type: type "null" is not in the subset; leave the property out of required instead`},
		{`{"type":["string","null"]}`, "schema.type: a list of types is not in the subset"},
		{`{"type":"array"}`, "schema: items: required for type array"},
		{`{"type":"string","minLength":1}`, `schema.minLength: "minLength" is not in the JSON Schema subset`},
		{`{"type":"string","enumm":["a"]}`, `schema.enumm: unknown keyword "enumm"`},
		{`{"type":"integer","enum":["a"]}`, "schema.enum: enum applies to type string only (this is integer)"},
		{`{"type":"object","properties":{"a":{"type":"string"}},"required":["b"]}`, `schema.required[0]: "b" is not a property of this object (properties: a)`},
		{`{"type":"object","properties":{"1a":{"type":"string"}}}`, `schema.properties["1a"]: property name "1a" must start with a letter`},
		{`{"type":"integer","default":"x"}`, `schema.default: the default does not match the schema: expected an integer, got a string ("x")`},
		{`{"type":"object","additionalProperties":{"type":"string"}}`, "schema.additionalProperties: expected true or false"},
	} {
		_, err := Parse([]byte(tc.schema))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want it to contain %q", tc.schema, err, tc.want)
		}
	}
}

func TestDepthIsBounded(t *testing.T) {
	s := strings.Repeat(`{"type":"array","items":`, MaxDepth+1) + `{"type":"string"}` + strings.Repeat("}", MaxDepth+1)
	if _, err := Parse([]byte(s)); err == nil || !strings.Contains(err.Error(), "nest more than") {
		t.Errorf("got %v", err)
	}
}
