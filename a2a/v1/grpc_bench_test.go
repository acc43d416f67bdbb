package a2av1_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	goruntime "runtime"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// The gRPC benchmarks compare, in one run and over loopback TCP, the
// generated binding (RegisterA2AServiceGRPC + the generated client) with a
// hand-written grpc-go service of the same shape: the same service and
// method names, the same a2av1 messages, the same answers, and a client that
// sends the same a2a-version metadata (any conforming A2A client must). The
// hand-written side is what protoc-gen-go-grpc would produce, written out
// here so that no such output is needed. Overhead of the binding =
// …/a2agen − …/handwritten.
//
//	go test -run '^$' -bench 'GRPC' -benchmem ./a2a/v1/

// grpcBenchRequest is a SendMessage request of about 300 bytes on the wire.
func grpcBenchRequest() *a2av1.SendMessageRequest {
	meta, _ := structpb.NewStruct(map[string]any{"source": "web", "priority": 2})
	return &a2av1.SendMessageRequest{
		Message: &a2av1.Message{MessageId: "9b6a1f0e-3c2d-4e5f-8a7b-1c2d3e4f5a6b", ContextId: "ctx-7f3e2d1c", Role: a2av1.Role_ROLE_USER,
			Parts: []*a2av1.Part{
				{Content: &a2av1.Part_Text{Text: "Summarise the attached quarterly report in three bullet points."}},
				{Content: &a2av1.Part_Text{Text: "Q3 revenue grew 12%."}, MediaType: "text/plain"},
			},
			Metadata: meta},
		Configuration: &a2av1.SendMessageConfiguration{HistoryLength: new(int32(1))},
	}
}

// grpcBenchAnswers are the prepared answers both servers send: a task for
// SendMessage, ten status updates for SendStreamingMessage.
type grpcBenchAnswers struct {
	resp   *a2av1.SendMessageResponse
	events []*a2av1.StreamResponse
}

func newGRPCBenchAnswers() *grpcBenchAnswers {
	now := timestamppb.Now()
	task := &a2av1.Task{Id: "0b8f6d7e-task", ContextId: "ctx-7f3e2d1c",
		Status:    &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_COMPLETED, Timestamp: now},
		Artifacts: []*a2av1.Artifact{{ArtifactId: "a-1", Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: "Echo: Summarise the attached quarterly report."}}}}}}
	a := &grpcBenchAnswers{resp: &a2av1.SendMessageResponse{Payload: &a2av1.SendMessageResponse_Task{Task: task}}}
	for range 10 {
		a.events = append(a.events, &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_StatusUpdate{StatusUpdate: &a2av1.TaskStatusUpdateEvent{
			TaskId: task.Id, ContextId: task.ContextId, Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_WORKING, Timestamp: now}}}})
	}
	return a
}

// grpcBenchAgent is the generated handler side.
type grpcBenchAgent struct {
	a2av1.UnimplementedA2AServiceHandler
	*grpcBenchAnswers
}

func (a grpcBenchAgent) SendMessage(context.Context, *a2av1.SendMessageRequest) (*a2av1.SendMessageResponse, error) {
	return a.resp, nil
}

func (a grpcBenchAgent) SendStreamingMessage(_ context.Context, _ *a2av1.SendMessageRequest, s runtime.Stream[*a2av1.StreamResponse]) error {
	for _, ev := range a.events {
		if err := s.Send(ev); err != nil {
			return err
		}
	}
	return nil
}

// handWrittenDesc is the grpc.ServiceDesc protoc-gen-go-grpc would generate
// for the two rpcs, written by hand.
var handWrittenDesc = grpc.ServiceDesc{
	ServiceName: "lf.a2a.v1.A2AService",
	HandlerType: (*any)(nil),
	Methods: []grpc.MethodDesc{{
		MethodName: "SendMessage",
		Handler: func(srv any, ctx context.Context, dec func(any) error, interceptor grpc.UnaryServerInterceptor) (any, error) {
			in := new(a2av1.SendMessageRequest)
			if err := dec(in); err != nil {
				return nil, err
			}
			if interceptor == nil {
				return srv.(*grpcBenchAnswers).resp, nil
			}
			info := &grpc.UnaryServerInfo{Server: srv, FullMethod: "/lf.a2a.v1.A2AService/SendMessage"}
			return interceptor(ctx, in, info, func(context.Context, any) (any, error) { return srv.(*grpcBenchAnswers).resp, nil })
		},
	}},
	Streams: []grpc.StreamDesc{{
		StreamName:    "SendStreamingMessage",
		ServerStreams: true,
		Handler: func(srv any, stream grpc.ServerStream) error {
			in := new(a2av1.SendMessageRequest)
			if err := stream.RecvMsg(in); err != nil {
				return err
			}
			for _, ev := range srv.(*grpcBenchAnswers).events {
				if err := stream.SendMsg(ev); err != nil {
					return err
				}
			}
			return nil
		},
	}},
}

// benchGRPCServerOptions are the grpc.NewServer options of every benchmark
// server, a2agen's and hand-written alike: long-lived stream workers, as
// host.Limits.GRPCServerOptions gives agents.
var benchGRPCServerOptions = []grpc.ServerOption{grpc.NumStreamWorkers(uint32(goruntime.GOMAXPROCS(0)))}

// benchGRPCServer serves register's service on loopback TCP and returns a
// connection to it.
func benchGRPCServer(b *testing.B, register func(*grpc.Server)) *grpc.ClientConn {
	b.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := grpc.NewServer(benchGRPCServerOptions...)
	register(srv)
	go func() { _ = srv.Serve(lis) }()
	b.Cleanup(srv.Stop)
	cc, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cc.Close() })
	return cc
}

func generatedBenchClient(b *testing.B, answers *grpcBenchAnswers) a2av1.A2AServiceClient {
	cc := benchGRPCServer(b, func(s *grpc.Server) {
		a2av1.RegisterA2AServiceGRPC(s, grpcBenchAgent{grpcBenchAnswers: answers}, runtime.WithLogger(slog.New(slog.DiscardHandler)))
	})
	return a2av1.NewA2AServiceGRPCClientFromConn(cc)
}

func handWrittenBenchConn(b *testing.B, answers *grpcBenchAnswers) *grpc.ClientConn {
	return benchGRPCServer(b, func(s *grpc.Server) { s.RegisterService(&handWrittenDesc, answers) })
}

// grpcBenchShape is one call shape measured on both sides: a function that
// makes one call through the generated client, and one that makes the same
// call through the hand-written service.
type grpcBenchShape struct {
	name        string
	a2agen      func(b *testing.B, c a2av1.A2AServiceClient)
	handwritten func(b *testing.B, cc *grpc.ClientConn)
}

// grpcBenchShapes are the shapes measured: a unary SendMessage, and a
// SendStreamingMessage receiving every event.
func grpcBenchShapes(answers *grpcBenchAnswers) (unary, stream grpcBenchShape) {
	req, ctx := grpcBenchRequest(), context.Background()
	want := len(answers.events)
	// Like the generated client, the hand-written one adds the metadata on
	// every call.
	versioned := func() context.Context {
		return metadata.AppendToOutgoingContext(ctx, "a2a-version", a2av1.A2AServiceDesc.ProtocolVersion())
	}
	unary = grpcBenchShape{
		name: "unary",
		a2agen: func(b *testing.B, c a2av1.A2AServiceClient) {
			if resp, err := c.SendMessage(ctx, req); err != nil || resp.GetTask() == nil {
				b.Fatalf("SendMessage = %v, %v", resp, err)
			}
		},
		handwritten: func(b *testing.B, cc *grpc.ClientConn) {
			resp := new(a2av1.SendMessageResponse)
			if err := cc.Invoke(versioned(), "/lf.a2a.v1.A2AService/SendMessage", req, resp); err != nil || resp.GetTask() == nil {
				b.Fatalf("SendMessage = %v, %v", resp, err)
			}
		},
	}
	stream = grpcBenchShape{
		name: "stream",
		a2agen: func(b *testing.B, c a2av1.A2AServiceClient) {
			n := 0
			for _, err := range c.SendStreamingMessage(ctx, req) {
				if err != nil {
					b.Fatal(err)
				}
				n++
			}
			if n != want {
				b.Fatalf("%d events, want %d", n, want)
			}
		},
		handwritten: func(b *testing.B, cc *grpc.ClientConn) {
			sctx, cancel := context.WithCancel(versioned())
			defer cancel()
			cs, err := cc.NewStream(sctx, &handWrittenDesc.Streams[0], "/lf.a2a.v1.A2AService/SendStreamingMessage")
			if err != nil {
				b.Fatal(err)
			}
			if err := cs.SendMsg(req); err != nil {
				b.Fatal(err)
			}
			if err := cs.CloseSend(); err != nil {
				b.Fatal(err)
			}
			n := 0
			for {
				if err := cs.RecvMsg(new(a2av1.StreamResponse)); err != nil {
					if !errors.Is(err, io.EOF) {
						b.Fatal(err)
					}
					break
				}
				n++
			}
			if n != want {
				b.Fatalf("%d events, want %d", n, want)
			}
		},
	}
	return unary, stream
}

// benchGRPCSides runs a shape on each side as a sub-benchmark of its own.
func benchGRPCSides(b *testing.B, answers *grpcBenchAnswers, shape grpcBenchShape) {
	b.Run("a2agen", func(b *testing.B) {
		c := generatedBenchClient(b, answers)
		b.ReportAllocs()
		for b.Loop() {
			shape.a2agen(b, c)
		}
	})
	b.Run("handwritten", func(b *testing.B) {
		cc := handWrittenBenchConn(b, answers)
		b.ReportAllocs()
		for b.Loop() {
			shape.handwritten(b, cc)
		}
	})
}

// BenchmarkGRPCUnary is one SendMessage round trip.
func BenchmarkGRPCUnary(b *testing.B) {
	answers := newGRPCBenchAnswers()
	unary, _ := grpcBenchShapes(answers)
	benchGRPCSides(b, answers, unary)
}

// BenchmarkGRPCStream is one SendStreamingMessage call receiving ten events.
func BenchmarkGRPCStream(b *testing.B) {
	answers := newGRPCBenchAnswers()
	_, stream := grpcBenchShapes(answers)
	benchGRPCSides(b, answers, stream)
}

// BenchmarkGRPCInterleaved answers "how much slower is the generated binding"
// with one number per shape. Each iteration makes one call through the
// generated binding and one through the hand-written service, alternating
// which goes first, and times each; drift on the machine (other load, CPU
// frequency) hits both sides alike instead of whichever sub-benchmark ran
// during it. Metrics: a2agen-ns/call, handwritten-ns/call and their ratio
// (1.05 = the binding costs 5 % more per round trip).
//
//	go test -run '^$' -bench GRPCInterleaved -count 10 ./a2a/v1/
func BenchmarkGRPCInterleaved(b *testing.B) {
	answers := newGRPCBenchAnswers()
	unary, stream := grpcBenchShapes(answers)
	for _, shape := range []grpcBenchShape{unary, stream} {
		b.Run(shape.name, func(b *testing.B) {
			c, cc := generatedBenchClient(b, answers), handWrittenBenchConn(b, answers)
			var ours, theirs time.Duration
			i := 0
			for b.Loop() {
				if i%2 == 0 {
					t0 := time.Now()
					shape.a2agen(b, c)
					t1 := time.Now()
					shape.handwritten(b, cc)
					ours, theirs = ours+t1.Sub(t0), theirs+time.Since(t1)
				} else {
					t0 := time.Now()
					shape.handwritten(b, cc)
					t1 := time.Now()
					shape.a2agen(b, c)
					theirs, ours = theirs+t1.Sub(t0), ours+time.Since(t1)
				}
				i++
			}
			b.ReportMetric(float64(ours.Nanoseconds())/float64(i), "a2agen-ns/call")
			b.ReportMetric(float64(theirs.Nanoseconds())/float64(i), "handwritten-ns/call")
			b.ReportMetric(float64(ours)/float64(theirs), "ratio")
		})
	}
}
