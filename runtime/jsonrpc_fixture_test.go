package runtime

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/emptypb"
	_ "google.golang.org/protobuf/types/known/structpb" // registers google/protobuf/struct.proto for the fixture's import
)

// The binding tests run against a small service described here rather than
// against the generated A2A package, which depends on this one. Its shapes
// mirror A2A's: a request with a tenant field, a Message with required
// members, an enum, and Struct metadata.
const rpctestFile = `
name: "a2agen/runtime/rpctest.proto"
package: "rpctest"
syntax: "proto3"
dependency: "google/protobuf/struct.proto"
enum_type {
  name: "Role"
  value { name: "ROLE_UNSPECIFIED" number: 0 }
  value { name: "ROLE_USER" number: 1 }
  value { name: "ROLE_AGENT" number: 2 }
}
message_type {
  name: "Part"
  field { name: "text" number: 1 label: LABEL_OPTIONAL type: TYPE_STRING json_name: "text" }
  field { name: "media_type" number: 2 label: LABEL_OPTIONAL type: TYPE_STRING json_name: "mediaType" }
}
message_type {
  name: "Message"
  field { name: "message_id" number: 1 label: LABEL_OPTIONAL type: TYPE_STRING json_name: "messageId" options { [google.api.field_behavior]: REQUIRED } }
  field { name: "context_id" number: 2 label: LABEL_OPTIONAL type: TYPE_STRING json_name: "contextId" }
  field { name: "role" number: 3 label: LABEL_OPTIONAL type: TYPE_ENUM type_name: ".rpctest.Role" json_name: "role" options { [google.api.field_behavior]: REQUIRED } }
  field { name: "parts" number: 4 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".rpctest.Part" json_name: "parts" options { [google.api.field_behavior]: REQUIRED } }
  field { name: "metadata" number: 5 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".google.protobuf.Struct" json_name: "metadata" }
}
message_type {
  name: "SendRequest"
  field { name: "tenant" number: 1 label: LABEL_OPTIONAL type: TYPE_STRING json_name: "tenant" }
  field { name: "message" number: 2 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".rpctest.Message" json_name: "message" options { [google.api.field_behavior]: REQUIRED } }
  field { name: "metadata" number: 3 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".google.protobuf.Struct" json_name: "metadata" }
}
message_type {
  name: "Request"
  field { name: "tenant" number: 1 label: LABEL_OPTIONAL type: TYPE_STRING json_name: "tenant" }
  field { name: "text" number: 2 label: LABEL_OPTIONAL type: TYPE_STRING json_name: "text" }
  field { name: "count" number: 3 label: LABEL_OPTIONAL type: TYPE_INT32 json_name: "count" }
  field { name: "fail" number: 4 label: LABEL_OPTIONAL type: TYPE_STRING json_name: "fail" }
  field { name: "fail_after" number: 5 label: LABEL_OPTIONAL type: TYPE_INT32 json_name: "failAfter" }
  field { name: "activate" number: 6 label: LABEL_REPEATED type: TYPE_STRING json_name: "activate" }
}
message_type {
  name: "Response"
  field { name: "text" number: 1 label: LABEL_OPTIONAL type: TYPE_STRING json_name: "text" }
  field { name: "tenant" number: 2 label: LABEL_OPTIONAL type: TYPE_STRING json_name: "tenant" }
  field { name: "extensions" number: 3 label: LABEL_REPEATED type: TYPE_STRING json_name: "extensions" }
  field { name: "version" number: 4 label: LABEL_OPTIONAL type: TYPE_STRING json_name: "version" }
  field { name: "authorization" number: 5 label: LABEL_OPTIONAL type: TYPE_STRING json_name: "authorization" }
  field { name: "seq" number: 6 label: LABEL_OPTIONAL type: TYPE_INT32 json_name: "seq" }
  field { name: "message" number: 7 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".rpctest.Message" json_name: "message" }
}
`

// Descriptors of the fixture messages.
var (
	mdSendRequest, mdRequest, mdResponse protoreflect.MessageDescriptor
)

func init() {
	var fdp descriptorpb.FileDescriptorProto
	if err := prototext.Unmarshal([]byte(rpctestFile), &fdp); err != nil {
		panic(err)
	}
	fd, err := protodesc.NewFile(&fdp, protoregistry.GlobalFiles)
	if err != nil {
		panic(err)
	}
	mdSendRequest = fd.Messages().ByName("SendRequest")
	mdRequest = fd.Messages().ByName("Request")
	mdResponse = fd.Messages().ByName("Response")
}

// testDesc is the fixture service; the operations are referenced by the
// client tests through testOp.
var testDesc = &ServiceDesc{
	Name:                "rpctest.TestService",
	ProtocolVersions:    []string{"1.0"},
	OtherVersionMethods: map[string]string{"test/echo": "0.9"},
	Operations: []Operation{
		{Name: "Echo", Procedure: "/rpctest.TestService/Echo", Request: "rpctest.Request", Response: "rpctest.Response"},
		{Name: "Send", Procedure: "/rpctest.TestService/Send", Request: "rpctest.SendRequest", Response: "rpctest.Response"},
		{Name: "Fail", Procedure: "/rpctest.TestService/Fail", Request: "rpctest.Request", Response: "rpctest.Response"},
		{Name: "Delete", Procedure: "/rpctest.TestService/Delete", Request: "rpctest.Request", Response: "google.protobuf.Empty"},
		{Name: "Stream", Procedure: "/rpctest.TestService/Stream", Request: "rpctest.Request", Response: "rpctest.Response", ServerStreaming: true},
		{Name: "Block", Procedure: "/rpctest.TestService/Block", Request: "rpctest.Request", Response: "rpctest.Response", ServerStreaming: true},
	},
}

func testOp(name string) *Operation {
	op := testDesc.Operation(name)
	if op == nil {
		panic("no fixture operation " + name)
	}
	return op
}

// maxStreamEvents caps the fixture's Stream so fuzzed counts cannot make it
// run for long.
const maxStreamEvents = 100

// newTestService builds the fixture service. Block sends one event, waits
// for its context to end, sends again and reports that Send's error on
// blockDone (when not nil).
func newTestService(blockDone chan<- error) *Service {
	newReq := func() *dynamicpb.Message { return dynamicpb.NewMessage(mdRequest) }
	newSend := func() *dynamicpb.Message { return dynamicpb.NewMessage(mdSendRequest) }
	return NewService(testDesc,
		NewUnaryEndpoint(testOp("Echo"), newReq, func(ctx context.Context, req *dynamicpb.Message) (*dynamicpb.Message, error) {
			resp := dynamicpb.NewMessage(mdResponse)
			setString(resp, "text", getString(req, "text"))
			setString(resp, "tenant", getString(req, "tenant"))
			if info, ok := CallInfoFromContext(ctx); ok {
				setStrings(resp, "extensions", info.Extensions)
				setString(resp, "version", info.Version)
				setString(resp, "authorization", info.Header.Get("Authorization"))
			}
			for _, uri := range getStrings(req, "activate") {
				ActivateExtension(ctx, uri)
			}
			return resp, nil
		}),
		NewUnaryEndpoint(testOp("Send"), newSend, func(ctx context.Context, req *dynamicpb.Message) (*dynamicpb.Message, error) {
			resp := dynamicpb.NewMessage(mdResponse)
			f := mdSendRequest.Fields().ByName("message")
			msg := proto.Clone(req.Get(f).Message().Interface()).(*dynamicpb.Message)
			msg.Set(msg.Descriptor().Fields().ByName("role"), protoreflect.ValueOfEnum(2))
			resp.Set(mdResponse.Fields().ByName("message"), protoreflect.ValueOfMessage(msg))
			setString(resp, "text", "ok")
			return resp, nil
		}),
		NewUnaryEndpoint(testOp("Fail"), newReq, func(ctx context.Context, req *dynamicpb.Message) (*dynamicpb.Message, error) {
			return nil, fixtureError(getString(req, "fail"))
		}),
		NewUnaryEndpoint(testOp("Delete"), newReq, func(ctx context.Context, req *dynamicpb.Message) (*emptypb.Empty, error) {
			return &emptypb.Empty{}, nil
		}),
		NewStreamEndpoint(testOp("Stream"), newReq, func(ctx context.Context, req *dynamicpb.Message, s Stream[*dynamicpb.Message]) error {
			count := min(int(getInt(req, "count")), maxStreamEvents)
			fail, failAfter := getString(req, "fail"), int(getInt(req, "fail_after"))
			for i := range count {
				if fail != "" && i == failAfter {
					return fixtureError(fail)
				}
				resp := dynamicpb.NewMessage(mdResponse)
				setInt(resp, "seq", int32(i))
				setString(resp, "text", getString(req, "text"))
				if err := s.Send(resp); err != nil {
					return err
				}
			}
			if fail != "" && failAfter >= count {
				return fixtureError(fail)
			}
			return nil
		}),
		NewStreamEndpoint(testOp("Block"), newReq, func(ctx context.Context, req *dynamicpb.Message, s Stream[*dynamicpb.Message]) error {
			resp := dynamicpb.NewMessage(mdResponse)
			setString(resp, "text", "first")
			if err := s.Send(resp); err != nil {
				return err
			}
			<-ctx.Done()
			err := s.Send(resp) // must fail now that the client is gone
			if blockDone != nil {
				blockDone <- err
			}
			return ctx.Err()
		}),
	)
}

// fixtureError is the error a failing fixture handler returns: "plain" is a
// non-A2A error whose text must not reach the client, "panic" panics, and an
// "typed-nil" returns a nil *Error as a non-nil error, and an
// ErrorCode name is an *Error of that code with a message, metadata and a
// field violation.
func fixtureError(what string) error {
	switch what {
	case "plain":
		return errors.New("db password=hunter2 rejected")
	case "panic":
		panic("fixture panic")
	case "typed-nil":
		var e *Error
		return e
	}
	for _, c := range allErrorCodes() {
		if c.String() == what {
			return NewError(c, "fixture "+what).
				WithMetadata("taskId", "task-1").
				WithViolations(FieldViolation{Field: "message.parts", Description: "must not be empty"})
		}
	}
	return fmt.Errorf("unknown fixture error %q", what)
}

func allErrorCodes() []ErrorCode {
	var out []ErrorCode
	for c := CodeTaskNotFound; c <= CodeResourceExhausted; c++ {
		out = append(out, c)
	}
	return out
}

func fieldOf(m protoreflect.ProtoMessage, name string) (protoreflect.Message, protoreflect.FieldDescriptor) {
	rm := m.ProtoReflect()
	fd := rm.Descriptor().Fields().ByName(protoreflect.Name(name))
	if fd == nil {
		panic(fmt.Sprintf("%s has no field %s", rm.Descriptor().FullName(), name))
	}
	return rm, fd
}

func getString(m proto.Message, name string) string {
	rm, fd := fieldOf(m, name)
	return rm.Get(fd).String()
}

func setString(m proto.Message, name, v string) {
	rm, fd := fieldOf(m, name)
	rm.Set(fd, protoreflect.ValueOfString(v))
}

func getInt(m proto.Message, name string) int32 {
	rm, fd := fieldOf(m, name)
	return int32(rm.Get(fd).Int())
}

func setInt(m proto.Message, name string, v int32) {
	rm, fd := fieldOf(m, name)
	rm.Set(fd, protoreflect.ValueOfInt32(v))
}

func getStrings(m proto.Message, name string) []string {
	rm, fd := fieldOf(m, name)
	l := rm.Get(fd).List()
	out := make([]string, l.Len())
	for i := range out {
		out[i] = l.Get(i).String()
	}
	return out
}

func setStrings(m proto.Message, name string, vs []string) {
	rm, fd := fieldOf(m, name)
	l := rm.Mutable(fd).List()
	for _, v := range vs {
		l.Append(protoreflect.ValueOfString(v))
	}
}

// newMessage decodes ProtoJSON into a new message of type md.
func newMessage(t testing.TB, md protoreflect.MessageDescriptor, js string) *dynamicpb.Message {
	t.Helper()
	m := dynamicpb.NewMessage(md)
	if err := protojson.Unmarshal([]byte(js), m); err != nil {
		t.Fatalf("fixture message %s: %v", js, err)
	}
	return m
}

func newResponse() proto.Message { return dynamicpb.NewMessage(mdResponse) }

// logBuffer collects log output safely across goroutines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func newTestLogger() (*slog.Logger, *logBuffer) {
	var b logBuffer
	return slog.New(slog.NewTextHandler(&b, &slog.HandlerOptions{Level: slog.LevelDebug})), &b
}

func slogDiscard() *slog.Logger { return slog.New(slog.DiscardHandler) }
