package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/structpb"
)

// jsonDepth is the exact depth jsonDepthWithin measures: the least max it
// accepts.
func jsonDepth(doc []byte) int {
	d := 0
	for !jsonDepthWithin(doc, d) {
		d++
	}
	return d
}

// referenceJSONDepth measures the nesting of a valid JSON document with
// encoding/json's tokenizer.
func referenceJSONDepth(doc []byte) (int, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber() // a number beyond float64 (1e700) is valid JSON
	depth, deepest := 0, 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return deepest, nil
		}
		if err != nil {
			return 0, err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
			deepest = max(deepest, depth)
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
}

func TestJSONDepthWithin(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want int
	}{
		{``, 0},
		{`"x"`, 0},
		{`{}`, 1},
		{`[[],[[]]]`, 3},
		{`{"a":{"b":[1,{"c":null}]}}`, 4},
		{`{"a":"[[[{{{"}`, 1},
		{`{"a":"\"[["}`, 1},
		{`{"a":"\\","b":[[]]}`, 3},
		{`{"a":"\\\"[","b":[]}`, 2},
		{`["\u005b[",["]"]]`, 2},
		{strings.Repeat("[", 1000) + strings.Repeat("]", 1000), 1000},
		{`{"unterminated":"[[[`, 1},
	} {
		if got := jsonDepth([]byte(tc.doc)); got != tc.want {
			t.Errorf("depth of %.40s = %d, want %d", tc.doc, got, tc.want)
		}
	}
}

// FuzzJSONDepth checks the depth jsonDepthWithin measures on valid JSON
// against encoding/json's tokenizer, and that any input is measured without
// a panic.
func FuzzJSONDepth(f *testing.F) {
	for _, s := range []string{`{}`, `[[1,"]"],{"a":"\\"}]`, `{"a":"\"[","b":[{}]}`, `"\\\\"`, `[`, `"[`, `{"x":[{"y":[[[]]]}]}`, `1e700`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		got := jsonDepth(doc)
		if !json.Valid(doc) {
			return
		}
		want, err := referenceJSONDepth(doc)
		if err != nil {
			t.Fatalf("reference: %v", err)
		}
		if got != want {
			t.Fatalf("depth of %q = %d, want %d", doc, got, want)
		}
	})
}

// messageDepth is the exact depth messageDepthWithin measures.
func messageDepth(m protoreflect.Message) int {
	d := 0
	for !messageDepthWithin(m, d) {
		d++
	}
	return d
}

// TestMessageDepthMatchesJSON: on gRPC the depth is measured on the decoded
// message; it must be the depth of the message's ProtoJSON form, so that the
// limit is the same on every binding.
func TestMessageDepthMatchesJSON(t *testing.T) {
	mustValue := func(v any) *structpb.Value {
		val, err := structpb.NewValue(v)
		if err != nil {
			t.Fatal(err)
		}
		return val
	}
	nested := mustValue("x")
	for range 30 {
		nested = structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{nested, mustValue(map[string]any{"k": []any{1.0}})}})
	}
	msgs := []proto.Message{
		&structpb.Struct{},
		mustValue(nil),
		mustValue(map[string]any{"a": map[string]any{"b": []any{"c", map[string]any{}}}}),
		mustValue([]any{[]any{}, []any{[]any{[]any{}}}}),
		nested,
		newMessage(t, mdRequest, `{}`),
		newMessage(t, mdRequest, `{"text":"x","activate":["a"]}`),
		protoMessageFromJSON(t, mdSendRequest, `{"message":{"messageId":"m","metadata":{"a":{"b":{}}}}}`),
		testMessageFromJSON(t, "Request", `{"tree":{"name":"a","children":[{"name":"b","next":{"name":"c","children":[{"name":"d"}]}}]},
			"items":[{"id":"x"}],"byKey":{"k":{"id":"y"}},"labels":{"a":"b"},"metadata":{"x":[1,{"y":[]}]}}`),
		testMessageFromJSON(t, "Kinds", `{"s":"x","list":["a"],"m":{"a":1},"msg":{"id":"i"},"ts":"2024-01-01T00:00:00Z","value":{"a":[[]]},"st":{}}`),
		testMessageFromJSON(t, "Kinds", `{"value":"scalar"}`),
		testMessageFromJSON(t, "Kinds", `{"ts":"2024-01-01T00:00:00Z"}`),
	}
	for _, m := range msgs {
		doc, err := protojson.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := messageDepth(m.ProtoReflect()), jsonDepth(doc); got != want {
			t.Errorf("message depth of %.60s = %d, want its JSON depth %d", doc, got, want)
		}
		// The same message as a dynamic one takes the reflection path
		// instead of the generated well-known types' Go walk.
		dyn := dynamicpb.NewMessage(m.ProtoReflect().Descriptor())
		if b, err := proto.Marshal(m); err != nil || proto.Unmarshal(b, dyn) != nil {
			t.Fatalf("copying %.60s into a dynamic message: %v", doc, err)
		}
		if got, want := messageDepth(dyn), jsonDepth(doc); got != want {
			t.Errorf("message depth of the dynamic %.60s = %d, want its JSON depth %d", doc, got, want)
		}
	}
}

// TestGRPCCodecRefusesDeepRequestsWithTheLimit: a request nested deeper
// than MaxJSONDepth is refused as InvalidArgument naming MaxJSONDepth, both
// when it decodes (measured on the message) and when it is too deep for
// GRPCServerCodec's recursion limit (grpc-go would answer INTERNAL).
func TestGRPCCodecRefusesDeepRequestsWithTheLimit(t *testing.T) {
	_, cc, _ := startGRPC(t, newTestService(nil), []grpc.ServerOption{grpc.ForceServerCodecV2(GRPCServerCodec())}, nil)
	call := func(lists int) error {
		return cc.Invoke(context.Background(), testOp("Send").Procedure, rawMessage(deepSendRequest(lists)), newResponse(),
			grpc.ForceCodecV2(rawCodec{}))
	}
	// The request's object and its metadata are two levels.
	if err := call(MaxJSONDepth - 2); strings.Contains(status.Convert(err).Message(), "MaxJSONDepth") {
		t.Errorf("at the limit: %v", err)
	}
	for _, lists := range []int{MaxJSONDepth - 1, grpcRecursionLimit, 20000} {
		st := status.Convert(call(lists))
		if st.Code() != codes.InvalidArgument || !strings.Contains(st.Message(), "MaxJSONDepth") {
			t.Errorf("%d nested lists: %v, want InvalidArgument naming MaxJSONDepth", lists, st.Err())
		}
	}
}

// deepSendRequest is the protobuf encoding of a rpctest.SendRequest whose
// metadata holds n nested lists: {"metadata":{"d":[[…]]}}.
func deepSendRequest(n int) []byte {
	v := structpb.NewStringValue("x")
	for range n {
		v = structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{v}})
	}
	meta, err := proto.Marshal(&structpb.Struct{Fields: map[string]*structpb.Value{"d": v}})
	if err != nil {
		panic(err)
	}
	fd := mdSendRequest.Fields().ByName("metadata")
	b := protowire.AppendTag(nil, fd.Number(), protowire.BytesType)
	return protowire.AppendBytes(b, meta)
}

// TestGRPCAuthenticatesBeforeDecoding: an unauthenticated call is refused
// before its request is decoded, so a request that would not even decode
// gets UNAUTHENTICATED, not grpc-go's decoding error (spec §7.4).
func TestGRPCAuthenticatesBeforeDecoding(t *testing.T) {
	refuse := func(context.Context, *AuthRequest) (context.Context, error) {
		return nil, NewError(CodeUnauthenticated, "no credentials")
	}
	_, cc, _ := startGRPC(t, newTestService(nil), nil, []HandlerOption{WithAuthenticator(refuse)})
	garbage := rawMessage{0xff, 0xff, 0xff, 0xff}
	err := cc.Invoke(context.Background(), restOp("Echo").Procedure, garbage, newResponse(), grpc.ForceCodecV2(rawCodec{}))
	if code := status.Code(err); code != codes.Unauthenticated {
		t.Fatalf("unary call with an undecodable request: %v, want Unauthenticated", err)
	}
	cs, err := cc.NewStream(context.Background(), &grpc.StreamDesc{ServerStreams: true}, restOp("Stream").Procedure, grpc.ForceCodecV2(rawCodec{}))
	if err != nil {
		t.Fatal(err)
	}
	if err := cs.SendMsg(garbage); err != nil {
		t.Fatal(err)
	}
	_ = cs.CloseSend()
	if err := cs.RecvMsg(newResponse()); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("streaming call with an undecodable request: %v, want Unauthenticated", err)
	}
}

// rawMessage is bytes sent as they are (with rawCodec).
type rawMessage []byte

// rawCodec sends rawMessage as its bytes and decodes like grpc-go's codec.
type rawCodec struct{}

func (rawCodec) Name() string { return "proto" }
func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	if b, ok := v.(rawMessage); ok {
		return mem.BufferSlice{mem.SliceBuffer(b)}, nil
	}
	return nil, fmt.Errorf("rawCodec: %T", v)
}
func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	return proto.Unmarshal(data.Materialize(), v.(proto.Message))
}
