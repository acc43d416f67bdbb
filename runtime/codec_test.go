package runtime

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/testing/protocmp"
)

// jsonMembers decodes a JSON object into its members, failing on duplicate
// member names (which a naive splice could produce) and on anything that is
// not an object.
func jsonMembers(t *testing.T, b []byte) map[string]any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("%s: not a JSON object (%v, %v)", b, tok, err)
	}
	out := map[string]any{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		name := tok.(string)
		if _, dup := out[name]; dup {
			t.Fatalf("%s: member %q appears twice", b, name)
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%s: member %q: %v", b, name, err)
		}
		out[name] = v
	}
	if _, err := dec.Token(); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	if dec.More() {
		t.Fatalf("%s: trailing data", b)
	}
	return out
}

// mustJSON decodes a literal expectation like jsonMembers does.
func mustJSON(t *testing.T, doc string) map[string]any {
	t.Helper()
	return jsonMembers(t, []byte(doc))
}

func TestMarshalJSONRequiredFields(t *testing.T) {
	tests := []struct {
		name string
		typ  string
		in   string // ProtoJSON of the message
		want string // every member of the output
	}{
		{"empty list response", "ListResponse", `{}`,
			`{"tasks":[],"nextPageToken":"","pageSize":0,"totalSize":0}`},
		{"last page keeps nextPageToken", "ListResponse",
			`{"tasks":[{"id":"t1","status":{"state":"KIND_A"}}],"pageSize":50,"totalSize":1}`,
			`{"tasks":[{"id":"t1","status":{"state":"KIND_A"}}],"nextPageToken":"","pageSize":50,"totalSize":1}`},
		{"nested defaults stay omitted", "ListResponse",
			`{"tasks":[{"status":{}}],"nextPageToken":"n","pageSize":1,"totalSize":3}`,
			`{"tasks":[{"status":{}}],"nextPageToken":"n","pageSize":1,"totalSize":3}`},
		{"populated fields are not repeated", "ListResponse",
			`{"tasks":[{"id":"a","artifacts":[{"artifactId":"x"}]}],"nextPageToken":"n","pageSize":1,"totalSize":2}`,
			`{"tasks":[{"id":"a","artifacts":[{"artifactId":"x"}]}],"nextPageToken":"n","pageSize":1,"totalSize":2}`},
		{"every kind at its default", "Kinds", `{}`,
			`{"s":"","b":"","flag":false,"i32":0,"i64":"0","u32":0,"d":0,"kind":"KIND_UNSPECIFIED","opt":0,"list":[],"m":{},"msg":{},"ts":"1970-01-01T00:00:00Z","value":null,"st":{}}`},
		{"a set oneof member is kept, no second member invented", "Kinds", `{"oneB":"b","opt":0}`,
			`{"s":"","b":"","flag":false,"i32":0,"i64":"0","u32":0,"d":0,"kind":"KIND_UNSPECIFIED","opt":0,"list":[],"m":{},"msg":{},"ts":"1970-01-01T00:00:00Z","value":null,"st":{},"oneB":"b"}`},
		{"type without required fields", "NoTenant", `{}`, `{}`},
		{"required nested message not forced", "Request", `{"message":{}}`, `{"message":{}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := testMessageFromJSON(t, tt.typ, tt.in)
			got, err := marshalJSON(m, true)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(mustJSON(t, tt.want), jsonMembers(t, got)); diff != "" {
				t.Errorf("marshalJSON = %s\n(-want +got):\n%s", got, diff)
			}
			// The output is valid ProtoJSON for the type and means the same
			// message (except for Kinds, whose forced message defaults decode
			// as set-but-empty messages).
			back := newTestMessage(t, tt.typ)
			if err := protojsonStrict(string(got), back); err != nil {
				t.Fatalf("output does not decode: %v\n%s", err, got)
			}
			if diff := cmp.Diff(m, back, protocmp.Transform(), protocmp.IgnoreEmptyMessages()); tt.typ != "Kinds" && diff != "" {
				t.Errorf("round trip (-in +out):\n%s", diff)
			}
		})
	}
}

// MarshalJSON and the bindings' encoder told not to emit REQUIRED fields
// leave defaults out.
func TestMarshalJSONWithoutRequired(t *testing.T) {
	m := testMessageFromJSON(t, "ListResponse", `{"pageSize":3}`)
	for name, marshal := range map[string]func(proto.Message) ([]byte, error){
		"MarshalJSON":        MarshalJSON,
		"marshalJSON(false)": func(m proto.Message) ([]byte, error) { return marshalJSON(m, false) },
	} {
		got, err := marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(mustJSON(t, `{"pageSize":3}`), jsonMembers(t, got)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
	if got, err := MarshalJSON(nil); err != nil || string(got) != "{}" {
		t.Errorf("MarshalJSON(nil) = %s, %v; want {}", got, err)
	}
}

func TestMarshalJSONError(t *testing.T) {
	m := newTestMessage(t, "Item")
	m.Set(m.Descriptor().Fields().ByName("id"), protoreflect.ValueOfString("\xff"))
	_, err := marshalJSON(m, true)
	if err == nil || !strings.Contains(err.Error(), "rttest.Item") {
		t.Errorf("marshalJSON(invalid UTF-8) = %v, want an error naming rttest.Item", err)
	}
}

// protojson varies its whitespace on purpose; the splice must cope with any.
func TestSpliceRequiredDefaults(t *testing.T) {
	m := newTestMessage(t, "ListResponse")
	m.Set(m.Descriptor().Fields().ByName("page_size"), protoreflect.ValueOfInt32(2))
	m.Set(m.Descriptor().Fields().ByName("next_page_token"), protoreflect.ValueOfString("n"))
	m.Set(m.Descriptor().Fields().ByName("total_size"), protoreflect.ValueOfInt32(9))
	d := requiredDefaultsOf(m.Descriptor())
	tests := []struct{ in, want string }{
		{`{}`, `{"tasks":[]}`},
		{" { \n } \n", " { \n \"tasks\":[]}"},
		{`{"pageSize":2}`, `{"pageSize":2,"tasks":[]}`},
		{`{"pageSize":2,  "totalSize":9} ` + "\n", `{"pageSize":2,  "totalSize":9,"tasks":[]}`},
		{`"not an object"`, `"not an object"`},
		{``, ``},
		{`[]`, `[]`},
	}
	for _, tt := range tests {
		if got := string(spliceRequiredDefaults([]byte(tt.in), m, d)); got != tt.want {
			t.Errorf("splice(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestUnmarshalJSON(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    string // ProtoJSON of the expected message
		wantErr string // substring of the error
	}{
		{"empty input is {}", ``, `{}`, ""},
		{"whitespace is {}", " \n\t ", `{}`, ""},
		{"null is {}", `null`, `{}`, ""},
		{"padded null is {}", " null\n", `{}`, ""},
		{"empty object", `{}`, `{}`, ""},
		{"unknown members ignored", `{"message":{"messageId":"m","kind":"text","x":[1,{"y":2}]},"bogus":true}`,
			`{"message":{"messageId":"m"}}`, ""},
		{"snake_case names accepted", `{"message":{"message_id":"m","role":"KIND_A"}}`,
			`{"message":{"messageId":"m","role":"KIND_A"}}`, ""},
		{"enum by number accepted", `{"message":{"role":1}}`, `{"message":{"role":"KIND_A"}}`, ""},
		{"malformed JSON", `{"message":`, "", "rttest.Request"},
		{"wrong type", `{"message":"text"}`, "", "rttest.Request"},
		{"unknown enum name is an error", `{"message":{"role":"user","messageId":"m"}}`, "", "rttest.Request"},
		{"two oneof members", `{"message":{"parts":[{"text":"a","raw":"AA=="}]}}`, "", "rttest.Request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Decoding replaces what the message held before.
			m := testMessageFromJSON(t, "Request", `{"tenant":"old","items":[{"id":"x"}]}`)
			err := UnmarshalJSON([]byte(tt.in), m)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("UnmarshalJSON(%q) = %v, want error containing %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("UnmarshalJSON(%q) = %v", tt.in, err)
			}
			want := testMessageFromJSON(t, "Request", tt.want)
			if diff := cmp.Diff(want, m, protocmp.Transform()); diff != "" {
				t.Errorf("decoded (-want +got):\n%s", diff)
			}
		})
	}
}

// BenchmarkMarshalJSONRequiredFields measures a ListTasksResponse-shaped last
// page (nextPageToken "" spliced in) against plain protojson.
func BenchmarkMarshalJSONRequiredFields(b *testing.B) {
	var tasks []string
	for range 10 {
		tasks = append(tasks, `{"id":"7f1c0e2a-9b0e-4a57-8d3c-0d3c1f6b2a11","status":{"state":"KIND_A"},"artifacts":[{"artifactId":"a1"}]}`)
	}
	m := testMessageFromJSON(b, "ListResponse", `{"tasks":[`+strings.Join(tasks, ",")+`],"pageSize":50,"totalSize":10}`)
	b.Run("protojson", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := protojson.Marshal(m); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("required", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := marshalJSON(m, true); err != nil {
				b.Fatal(err)
			}
		}
	})
}
