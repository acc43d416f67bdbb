package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"
)

// bindTestQuery binds raw to a new rttest.<name> and returns it as compact
// ProtoJSON for comparison, or the error.
func bindTestQuery(t testing.TB, name, raw string) (string, *Error) {
	t.Helper()
	m := newTestMessage(t, name)
	if e := bindQuery(m, raw, nil); e != nil {
		return "", e
	}
	b, err := protojson.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return compactJSON(t, b), nil
}

// compactJSON removes the whitespace protojson varies between builds.
func compactJSON(t testing.TB, b []byte) string {
	t.Helper()
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func TestBindQuery(t *testing.T) {
	tests := []struct {
		name, message, query, want string
	}{
		{"camelCase names", "Kinds", "i32=5&oneA=x", `{"i32":5,"oneA":"x"}`},
		{"proto names", "Kinds", "one_a=x&u32=7", `{"u32":7,"oneA":"x"}`},
		{"escaped key and value", "Kinds", "%73=a%20b%2Bc&s%3D=ignored", `{"s":"a b+c"}`},
		{"plus is a space", "Kinds", "s=a+b", `{"s":"a b"}`},
		{"enum by name", "Kinds", "kind=KIND_A", `{"kind":"KIND_A"}`},
		{"enum by number", "Kinds", "kind=1", `{"kind":"KIND_A"}`},
		{"booleans", "Kinds", "flag=true", `{"flag":true}`},
		{"boolean 1", "Kinds", "flag=1", `{"flag":true}`},
		{"boolean false", "Kinds", "flag=FALSE&i32=1", `{"i32":1}`},
		{"numbers", "Kinds", "i64=-9000000000&d=1.5e3&u32=4294967295", `{"i64":"-9000000000","u32":4294967295,"d":1500}`},
		{"explicit presence", "Kinds", "opt=0", `{"opt":0}`},
		{"bytes, standard base64", "Kinds", "b=aGk%2B", `{"b":"aGk+"}`},
		{"bytes, URL-safe unpadded", "Kinds", "b=aGk-", `{"b":"aGk+"}`},
		{"timestamp", "Kinds", "ts=2025-11-09T10:30:00Z", `{"ts":"2025-11-09T10:30:00Z"}`},
		{"timestamp with escaped offset", "Kinds", "ts=2025-11-09T10:30:00.5%2B01:00", `{"ts":"2025-11-09T09:30:00.500Z"}`},
		{"timestamp with unescaped offset", "Kinds", "ts=2025-11-09T10:30:00+01:00", `{"ts":"2025-11-09T09:30:00Z"}`},
		{"repeated by repeating the key", "Kinds", "list=a&list=b", `{"list":["a","b"]}`},
		{"repeated by comma-joining", "Kinds", "list=a,b&list=c", `{"list":["a","b","c"]}`},
		{"singular keeps commas", "Kinds", "s=a,b", `{"s":"a,b"}`},
		{"nested message field", "Kinds", "msg.id=x", `{"msg":{"id":"x"}}`},
		{"nested by proto names", "Request", "configuration.history_length=3&configuration.taskPushNotificationConfig.url=u",
			`{"configuration":{"taskPushNotificationConfig":{"url":"u"},"historyLength":3}}`},
		{"unknown parameters ignored", "Kinds", "nope=1&msg.nope=2&s.x=3&=4&&A2A-Version=1.0&a2a-version=x", `{}`},
		{"unknown nested parent leaves nothing behind", "Request", "configuration.nope=1", `{}`},
		{"empty query", "Kinds", "", `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, e := bindTestQuery(t, tt.message, tt.query)
			if e != nil {
				t.Fatalf("bindQuery(%q): %v", tt.query, e)
			}
			if got != tt.want {
				t.Errorf("bindQuery(%q) = %s, want %s", tt.query, got, tt.want)
			}
		})
	}
}

func TestBindQueryErrors(t *testing.T) {
	tests := []struct {
		name, message, query, field, mention string
	}{
		{"not a number", "Kinds", "i32=abc", "i32", `"abc" is not an int32`},
		{"not an integer", "Kinds", "i32=1.5", "i32", "not an int32"},
		{"int32 out of range", "Kinds", "i32=2147483648", "i32", "out of range"},
		{"uint32 negative", "Kinds", "u32=-1", "u32", "not a uint32"},
		{"empty number", "Kinds", "i32=", "i32", "not an int32"},
		{"bad boolean", "Kinds", "flag=maybe", "flag", "not a boolean"},
		{"unknown enum name", "Kinds", "kind=NOPE", "kind", "NOPE"},
		{"v0.3 lower-case enum", "Kinds", "kind=kind_a", "kind", "kind_a"},
		{"undeclared enum number", "Kinds", "kind=7", "kind", "no value numbered 7"},
		{"bad timestamp", "Kinds", "ts=yesterday", "ts", "RFC 3339"},
		{"bad bytes", "Kinds", "b=!!", "b", "base64"},
		{"invalid UTF-8", "Kinds", "s=%FF", "s", "UTF-8"},
		{"singular twice", "Kinds", "i32=1&i32=2", "i32", "more than once"},
		{"singular twice under both names", "Kinds", "oneA=1&one_a=2", "oneA", "more than once"},
		{"map field", "Kinds", "m=1", "m", "cannot be set"},
		{"Struct field", "Kinds", "st=1", "st", "cannot be set"},
		{"message field itself", "Kinds", "msg=1", "msg", "cannot be set"},
		{"repeated message", "Request", "items=1", "items", "cannot be set"},
		{"bad item in a list", "Kinds", "list=%FF", "list", "UTF-8"},
		{"nested bad value", "Request", "configuration.historyLength=x", "configuration.historyLength", "not an int32"},
		{"bad escape in value", "Kinds", "i32=%zz", "i32", "escaped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, e := bindTestQuery(t, tt.message, tt.query)
			if e == nil {
				t.Fatalf("bindQuery(%q) accepted it", tt.query)
			}
			if !errors.Is(e, ErrInvalidParams) {
				t.Errorf("code = %v, want InvalidParams", e.Code())
			}
			if !strings.Contains(e.Message(), tt.mention) {
				t.Errorf("message %q does not mention %q", e.Message(), tt.mention)
			}
			if v := e.FieldViolations(); len(v) != 1 || v[0].Field != tt.field {
				t.Errorf("violations = %v, want one on %s", v, tt.field)
			}
		})
	}
	if _, e := bindTestQuery(t, "Kinds", "%zz=1"); e == nil || !errors.Is(e, ErrInvalidParams) {
		t.Errorf("a badly escaped key: %v, want InvalidParams", e)
	}
}

// TestBindQueryAliasAndSkip adds an alias to the package's table, so it must
// not run in parallel with other tests.
func TestBindQueryAliasAndSkip(t *testing.T) {
	queryAliases["tsAlias"] = "ts"
	defer delete(queryAliases, "tsAlias")
	got, e := bindTestQuery(t, "Kinds", "tsAlias=2025-01-02T03:04:05Z")
	if e != nil || got != `{"ts":"2025-01-02T03:04:05Z"}` {
		t.Errorf("alias: %s, %v", got, e)
	}
	if _, e := bindTestQuery(t, "Kinds", "tsAlias=bad"); e == nil || !strings.Contains(e.Message(), "tsAlias") || e.FieldViolations()[0].Field != "ts" {
		t.Errorf("bad value under an alias: %v, want the name as sent and the field's own path", e)
	}
	if _, e := bindTestQuery(t, "Kinds", "ts=2025-01-02T03:04:05Z&tsAlias=2025-01-02T03:04:05Z"); e == nil {
		t.Error("a field given under its name and an alias was accepted")
	}
	if got, e := bindTestQuery(t, "Request", "tsAlias=x"); e != nil || got != "{}" {
		t.Errorf("alias of a field the message lacks: %s, %v; want it ignored", got, e)
	}

	m := newTestMessage(t, "Kinds")
	if e := bindQuery(m, "msg.id=x&s=y", m.Descriptor().Fields().ByName("msg")); e != nil {
		t.Fatal(e)
	}
	if got := compactJSON(t, mustMarshal(t, m)); got != `{"s":"y"}` {
		t.Errorf("skipped body field set from the query: %s", got)
	}
}

func mustMarshal(t testing.TB, m proto.Message) []byte {
	t.Helper()
	b, err := protojson.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestQueryParam(t *testing.T) {
	for raw, want := range map[string]string{
		"A2A-Version=1.0":               "1.0",
		"x=1&a2a-version=0.3&y":         "0.3",
		"A2A%2DVersion=1%2E0":           "1.0",
		"A2A-Version":                   "",
		"pageSize=1":                    "",
		"A2A-Version=%zz&A2A-Version=2": "2",
		"":                              "",
	} {
		if got := queryParam(raw, paramVersion); got != want {
			t.Errorf("queryParam(%q) = %q, want %q", raw, got, want)
		}
	}
}

// TestEncodeQueryRoundTrip checks that what the client writes in a query
// string, the server binds back to the same message.
func TestEncodeQueryRoundTrip(t *testing.T) {
	m := testMessageFromJSON(t, "Kinds", `{"s":"a b&c=d,e","b":"aGk+","flag":true,"i32":-5,"i64":"9000000000","u32":7,"d":0.1,
		"kind":"KIND_A","opt":0,"list":["x","y z"],"msg":{"id":"n"},"ts":"2025-11-09T10:30:00.123Z","oneB":"o"}`)
	q, err := appendQuery(nil, m, map[string]bool{"u32": true})
	if err != nil {
		t.Fatal(err)
	}
	back := newTestMessage(t, "Kinds")
	if e := bindQuery(back, string(q), nil); e != nil {
		t.Fatalf("binding %s: %v", q, e)
	}
	want := proto.Clone(m).(*dynamicpb.Message)
	want.Clear(want.Descriptor().Fields().ByName("u32"))
	if !proto.Equal(back, want) {
		t.Errorf("round trip through %s:\n got %s\nwant %s", q, mustMarshal(t, back), mustMarshal(t, want))
	}
	if _, err := appendQuery(nil, testMessageFromJSON(t, "Kinds", `{"m":{"a":1}}`), nil); err == nil {
		t.Error("a map field was written in a query string")
	}
}

// FuzzQueryBinding feeds arbitrary query strings to the binder: it must
// never panic, errors must be InvalidParams naming a field, and what it
// binds, encoded by the client and bound again, must encode the same.
// (Encodings are compared rather than messages: "msg.id=" creates an empty
// msg, which no query string can express.)
func FuzzQueryBinding(f *testing.F) {
	for _, s := range []string{"i32=5&oneA=x", "kind=KIND_A&list=a,b&list=c", "ts=2025-11-09T10:30:00+01:00", "msg.id=x&b=aGk-",
		"i32=2147483648", "flag=maybe", "%zz=1", "s=%FF", "d=NaN&opt=0", "configuration.historyLength=3", "m=1&st=2", "=&&=", "msg.id"} {
		f.Add("Kinds", s)
	}
	f.Add("Request", "configuration.taskPushNotificationConfig.authentication.scheme=Bearer&tenant=t")
	f.Fuzz(func(t *testing.T, message, raw string) {
		if message != "Request" {
			message = "Kinds"
		}
		m := newTestMessage(t, message)
		if e := bindQuery(m, raw, nil); e != nil {
			if !errors.Is(e, ErrInvalidParams) || len(e.FieldViolations()) > 1 {
				t.Fatalf("bindQuery(%q) = %v, want InvalidParams with at most one violation", raw, e)
			}
			return
		}
		q, err := appendQuery(nil, m, nil)
		if err != nil {
			t.Fatalf("bindQuery(%q) produced a message the client cannot encode: %v", raw, err)
		}
		back := newTestMessage(t, message)
		if e := bindQuery(back, string(q), nil); e != nil {
			t.Fatalf("re-binding %q (from %q): %v", q, raw, e)
		}
		q2, err := appendQuery(nil, back, nil)
		if err != nil || string(q2) != string(q) {
			t.Fatalf("%q bound to %s, encoded as %q; bound again it encodes as %q (%v)", raw, mustMarshal(t, m), q, q2, err)
		}
	})
}
