package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sort"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// jsonValueCount is the count jsonValuesWithin takes of doc: the least max
// it accepts (below len(doc), where it reads the document).
func jsonValueCount(doc []byte) int {
	return sort.Search(len(doc), func(max int) bool { return jsonValuesWithin(doc, max) })
}

// protoValueCount is the count protoValuesWithin takes of b.
func protoValueCount(md protoreflect.MessageDescriptor, b []byte) int {
	return sort.Search(len(b), func(max int) bool { return protoValuesWithin(md, b, max) })
}

// TestValuesCountedAlikeOnEveryEncoding: the values of a request are
// counted on its JSON bytes (JSON-RPC, HTTP+JSON) and on its protobuf
// bytes (gRPC) before decoding; both counts must be about the same (within
// a few of each other, and of the ProtoJSON form's members and elements),
// so that the limit is the same on every binding.
func TestValuesCountedAlikeOnEveryEncoding(t *testing.T) {
	list := func(n int, item string) string {
		return "[" + strings.TrimSuffix(strings.Repeat(item+",", n), ",") + "]"
	}
	for _, tc := range []struct {
		doc  string
		want int // members and elements, about
	}{
		{`{"message":{"messageId":"m"}}`, 2},
		{`{"message":{"messageId":"m","metadata":{"a":1,"b":"x","c":true,"d":null}}}`, 7},
		{`{"message":{"messageId":"m","metadata":{"n":` + list(1000, "1") + `}}}`, 1004},
		{`{"message":{"messageId":"m","metadata":{"n":` + list(1000, `{"a":[1,2]}`) + `}}}`, 4004},
		{`{"message":{"messageId":"m","metadata":{"n":` + list(MaxJSONValues, "0") + `}}}`, MaxJSONValues + 4},
	} {
		m := protoMessageFromJSON(t, mdSendRequest, tc.doc)
		b, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		// The JSON as the message's ProtoJSON form, so that both
		// encodings carry the same content.
		doc, err := protojson.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		jsonN, protoN := jsonValueCount(doc), protoValueCount(mdSendRequest, b)
		near := func(a, b int) bool { return a-b <= 4 && b-a <= 4 }
		if !near(jsonN, tc.want) || !near(protoN, tc.want) {
			t.Errorf("%.80s: %d values counted on JSON, %d on protobuf; want about %d", tc.doc, jsonN, protoN, tc.want)
		}
	}
}

// TestJSONValuesAreBoundedBeforeDecoding: a request over MaxJSONValues is
// refused with InvalidRequest naming MaxJSONValues by the JSON-RPC envelope's
// parser and on gRPC (with GRPCServerCodec, before decoding), and one within it is served.
func TestJSONValuesAreBoundedBeforeDecoding(t *testing.T) {
	request := func(n int) string {
		return `{"message":{"messageId":"m","metadata":{"n":[` + strings.TrimSuffix(strings.Repeat("0,", n), ",") + `]}}}`
	}
	svc := newTestService(nil)
	for _, tc := range []struct {
		n      int
		refuse bool
	}{{MaxJSONValues - 10, false}, {MaxJSONValues + 10, true}, {4 << 20, true}} {
		params := request(tc.n)
		_, e := parseRequest([]byte(`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":` + params + `}`))
		if named := e != nil && e.Metadata()["limit"] == "MaxJSONValues"; named != tc.refuse || tc.refuse && e.Code() != CodeInvalidRequest {
			t.Errorf("JSON-RPC, %d values: %v; refused with MaxJSONValues: want %v", tc.n, e, tc.refuse)
		}
	}
	_, cc, _ := startGRPC(t, svc, []grpc.ServerOption{grpc.ForceServerCodecV2(GRPCServerCodec())}, nil)
	for _, tc := range []struct {
		n      int
		refuse bool
	}{{MaxJSONValues - 10, false}, {MaxJSONValues + 10, true}} {
		b, err := proto.Marshal(protoMessageFromJSON(t, mdSendRequest, request(tc.n)))
		if err != nil {
			t.Fatal(err)
		}
		err = cc.Invoke(context.Background(), testOp("Send").Procedure, rawMessage(b), newResponse(), grpc.ForceCodecV2(rawCodec{}))
		st := status.Convert(err)
		if named := st.Code() == codes.InvalidArgument && strings.Contains(st.Message(), "MaxJSONValues"); named != tc.refuse {
			t.Errorf("gRPC, %d values: %v; refused with MaxJSONValues: want %v", tc.n, err, tc.refuse)
		}
	}
}

// FuzzProtoValues: counting the values of any bytes as a request never
// fails, and never refuses bytes shorter than the limit.
func FuzzProtoValues(f *testing.F) {
	for _, b := range [][]byte{nil, deepSendRequest(3), deepSendRequest(300), {0x0a, 0x80}, {0xff, 0xff, 0xff}} {
		f.Add(b, 2)
	}
	f.Fuzz(func(t *testing.T, b []byte, max int) {
		if max < 0 {
			max = -max
		}
		if !protoValuesWithin(mdSendRequest, b, max) && len(b) <= max {
			t.Fatalf("%d bytes refused under a limit of %d values", len(b), max)
		}
	})
}

// referenceJSONValueCount counts what jsonValuesWithin counts through
// encoding/json's tokenizer: its values (object keys not counted) less one,
// plus its empty objects and arrays (commas plus brackets).
func referenceJSONValueCount(doc []byte) (int, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	type level struct {
		object bool
		tokens int
	}
	var stack []level
	values, empty := 0, 0
	value := func() {
		values++
		if n := len(stack); n > 0 {
			stack[n-1].tokens++
		}
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return values - 1 + empty, nil
		}
		if err != nil {
			return 0, err
		}
		switch d := tok.(type) {
		case json.Delim:
			switch d {
			case '{', '[':
				value()
				stack = append(stack, level{object: d == '{'})
			default:
				if stack[len(stack)-1].tokens == 0 {
					empty++
				}
				stack = stack[:len(stack)-1]
			}
		default:
			if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].tokens%2 == 0 {
				stack[n-1].tokens++ // a key
				continue
			}
			value()
		}
	}
}

// FuzzJSONValues: on valid JSON, jsonValuesWithin counts exactly the
// commas and brackets outside strings (the reference through
// encoding/json's tokenizer), so its bound is what docs/limits.md says.
func FuzzJSONValues(f *testing.F) {
	for _, s := range []string{`{}`, `[1,2,[],{}]`, `{"a":",","b":[{"c":"]"}]}`, `"\\",`, `[[[1]],{"x":{}}]`, `0`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		if !json.Valid(doc) {
			jsonValuesWithin(doc, 1) // never fails, whatever the input
			return
		}
		want, err := referenceJSONValueCount(doc)
		if err != nil {
			t.Fatalf("reference: %v", err)
		}
		if got := jsonValueCount(doc); got != want && want < len(doc) {
			t.Fatalf("values of %q = %d, want %d", doc, got, want)
		}
	})
}
