package runtime_test

import (
	goruntime "runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// stringsOf collects every string a message holds: string fields, list
// elements, map keys and values, through nested messages (Struct and Value
// included).
func stringsOf(m protoreflect.Message) []string {
	var out []string
	value := func(fd protoreflect.FieldDescriptor, v protoreflect.Value) {
		switch fd.Kind() {
		case protoreflect.StringKind:
			out = append(out, v.String())
		case protoreflect.MessageKind:
			out = append(out, stringsOf(v.Message())...)
		}
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList():
			for i := range v.List().Len() {
				value(fd, v.List().Get(i))
			}
		case fd.IsMap():
			v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				if fd.MapKey().Kind() == protoreflect.StringKind {
					out = append(out, k.String())
				}
				value(fd.MapValue(), mv)
				return true
			})
		default:
			value(fd, v)
		}
		return true
	})
	return out
}

// TestDecodedStringsDoNotAliasTheInput: no string of a decoded message
// points into the buffer it was decoded from — ids, texts, list elements,
// Struct keys and values, with and without escapes — so the bindings may
// reuse the buffer and a stored message keeps no part of the request.
func TestDecodedStringsDoNotAliasTheInput(t *testing.T) {
	doc := []byte(`{"tenant":"acme","message":{"messageId":"m-1","contextId":"c-1","role":"ROLE_USER",` +
		`"parts":[{"text":"hello"},{"text":"esc\n\u00e9"},{"data":{"key":"value","list":["a",{"k2":"v2"}]}}],` +
		`"extensions":["https://x/e"],"referenceTaskIds":["r1"],"metadata":{"mk":"mv"}}}`)
	var m a2av1.SendMessageRequest
	if !runtime.DecodeProtoJSON(doc, &m) {
		t.Fatal("not decoded by the runtime's decoder")
	}
	got := stringsOf(m.ProtoReflect())
	if len(got) < 14 {
		t.Fatalf("found %d strings (%q), want every string of the message", len(got), got)
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(doc)))
	hi := lo + uintptr(len(doc))
	for _, s := range got {
		if p := uintptr(unsafe.Pointer(unsafe.StringData(s))); len(s) > 0 && p >= lo && p < hi {
			t.Errorf("%q points into the input buffer", s)
		}
	}
	want := stringsOf(m.ProtoReflect())
	slices.Sort(want)
	for i := range doc {
		doc[i] = '#'
	}
	after := stringsOf(m.ProtoReflect())
	slices.Sort(after) // map order varies
	for i, s := range after {
		if s != want[i] {
			t.Errorf("string %d changed with the input buffer: %q, was %q", i, s, want[i])
		}
	}
}

// TestDecodedMessageKeepsOnlyItsStrings: messages decoded from requests of
// a few KiB keep their own strings, not the request: 2,000 kept messages
// with an 11-byte text each, decoded from 4 KiB requests (unknown members
// and white space around the text), hold far less than the 8 MiB of the
// requests. (Sharing one copy of each request, as the decoder once did for
// inputs under 16 KiB, keeps all 8 MiB.)
func TestDecodedMessageKeepsOnlyItsStrings(t *testing.T) {
	pad := strings.Repeat(" ", 4<<10)
	doc := []byte(`{"message":{"messageId":"m-1",` + pad + `"parts":[{"text":"hello world"}]}}`)
	const n = 2000
	kept := make([]*a2av1.SendMessageRequest, n)
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	for i := range kept {
		kept[i] = new(a2av1.SendMessageRequest)
		if !runtime.DecodeProtoJSON(doc, kept[i]) {
			t.Fatal("not decoded")
		}
	}
	goruntime.GC()
	goruntime.ReadMemStats(&after)
	if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > int64(n*len(doc)/4) {
		t.Errorf("%d messages decoded from %d-byte requests keep %d KiB alive, want far less than the requests' %d KiB",
			n, len(doc), grown>>10, n*len(doc)>>10)
	}
	goruntime.KeepAlive(kept)
	if kept[n-1].GetMessage().GetParts()[0].GetText() != "hello world" {
		t.Errorf("decoded %v", kept[n-1])
	}
}

// BenchmarkDecodeStrings is the cost of the decoded strings' own copies:
// a typical SendMessage request, and one of 100 short text parts (one
// copy per string, where sharing one copy of the input needs one in all).
func BenchmarkDecodeStrings(b *testing.B) {
	var parts []string
	for i := range 100 {
		parts = append(parts, `{"text":"part number `+strings.Repeat("x", i%10)+`"}`)
	}
	for _, bc := range []struct{ name, doc string }{
		{"send", `{"message":{"messageId":"0193b8c4-5f7e-7a1c-9d2e-3f4a5b6c7d8e","contextId":"0193b8c4-5f7e-7a1c-9d2e-000000000001",` +
			`"role":"ROLE_USER","parts":[{"text":"What is the weather in Paris tomorrow?"}]},"configuration":{"acceptedOutputModes":["text/plain"]}}`},
		{"100parts", `{"message":{"messageId":"m-1","role":"ROLE_USER","parts":[` + strings.Join(parts, ",") + `]}}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			doc := []byte(bc.doc)
			b.ReportAllocs()
			b.SetBytes(int64(len(doc)))
			for b.Loop() {
				var m a2av1.SendMessageRequest
				if !runtime.DecodeProtoJSON(doc, &m) {
					b.Fatal("not decoded")
				}
			}
		})
	}
}

// TestDynamicMessagesLeaveTheLayoutAlone: a dynamic message (dynamicpb)
// of a type, decoded first, goes to protojson and does not keep the
// generated Go type of the same descriptor from the runtime's decoder.
func TestDynamicMessagesLeaveTheLayoutAlone(t *testing.T) {
	md := (&a2av1.AgentSkill{}).ProtoReflect().Descriptor()
	doc := []byte(`{"id":"s","name":"n","tags":["a"]}`)
	for range 2 {
		dyn := dynamicpb.NewMessage(md)
		if runtime.HasGoLayout(dyn) || runtime.DecodeProtoJSON(doc, dyn) {
			t.Fatal("a dynamic message has a Go layout")
		}
		if err := runtime.UnmarshalJSON(doc, dyn); err != nil {
			t.Fatalf("dynamic message: %v", err)
		}
	}
	var skill a2av1.AgentSkill
	if !runtime.HasGoLayout(&skill) || !runtime.DecodeProtoJSON(doc, &skill) || skill.GetTags()[0] != "a" {
		t.Fatalf("the generated type lost the runtime's decoder after a dynamic message: %v", &skill)
	}
}
