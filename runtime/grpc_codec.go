package runtime

import (
	"fmt"
	"strings"

	"google.golang.org/grpc/encoding"
	grpcproto "google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
)

// GRPCServerCodec returns grpc-go's protobuf codec with one change: A2A
// requests are decoded with a protobuf recursion limit that fits
// MaxJSONDepth instead of protobuf's 10,000 levels, so a deeply nested
// request is refused after reading as many levels as the limit allows rather
// than after recursing through all of them (10,000 levels cost about 13 MB
// of goroutine stack and a fifth of a second). The refusal is the same
// InvalidArgument naming MaxJSONDepth that a deep but decodable request gets.
// It also counts a request's values on its bytes before decoding it, and
// refuses one holding more than MaxJSONValues undecoded (InvalidArgument
// naming MaxJSONValues); without the codec that bound does not hold on gRPC.
// Install it with grpc.ForceServerCodecV2(runtime.GRPCServerCodec());
// host.Start does. Without it the limit still holds, checked after grpc-go's
// own decoding.
//
// Messages of other services on the same server (health, reflection) are
// decoded as by grpc-go's codec.
func GRPCServerCodec() encoding.CodecV2 { return grpcServerCodec{} }

type grpcServerCodec struct{}

func (grpcServerCodec) Name() string { return grpcproto.Name }

func (grpcServerCodec) Marshal(v any) (mem.BufferSlice, error) {
	return encoding.GetCodecV2(grpcproto.Name).Marshal(v)
}

func (grpcServerCodec) Unmarshal(data mem.BufferSlice, v any) error {
	req, ok := v.(*grpcRequest)
	if !ok {
		return encoding.GetCodecV2(grpcproto.Name).Unmarshal(data, v)
	}
	buf := data.MaterializeToBuffer(mem.DefaultBufferPool())
	defer buf.Free()
	if !protoValuesWithin(req.Message.ProtoReflect().Descriptor(), buf.ReadOnlyData(), MaxJSONValues) {
		req.tooMany = true // refused by the handler, not decoded
		return nil
	}
	err := proto.UnmarshalOptions{RecursionLimit: grpcRecursionLimit}.Unmarshal(buf.ReadOnlyData(), req.Message)
	if err != nil && strings.Contains(err.Error(), "exceeded maximum recursion depth") {
		// grpc-go would answer a codec error with INTERNAL; the handler
		// answers this one itself (see grpcRequest).
		proto.Reset(req.Message)
		req.tooDeep = true
		return nil
	}
	if err != nil {
		return fmt.Errorf("decoding %s: %w", req.Message.ProtoReflect().Descriptor().FullName(), err)
	}
	return nil
}

// grpcRequest is what the gRPC handlers give grpc-go to decode a request
// into. To grpc-go's own codec it is the request message itself (it has the
// message's ProtoReflect); GRPCServerCodec recognises it and records a
// request too deep for its recursion limit instead of failing the decode,
// which grpc-go would answer with INTERNAL.
type grpcRequest struct {
	proto.Message
	tooDeep bool
	tooMany bool // more than MaxJSONValues values: not decoded
}
