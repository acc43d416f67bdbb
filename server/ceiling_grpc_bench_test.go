package server_test

import (
	"context"
	"fmt"
	"net"
	goruntime "runtime"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/ceiling"
	"github.com/a2agen/a2agen/internal/echo"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
)

// BenchmarkCeilingGRPCStream streams "stream N" over gRPC from the default
// server (echo agent, memory store, the generated gRPC binding, served as
// host serves it) and from the ceiling's hand-written gRPC service
// (internal/ceiling), with the same generated client, in one process. N is
// 1 and 10: the difference of the two per-stream costs, divided by 9, is
// the cost of one event, start-up and request excluded. Meant for
// instruction counts (callgrind), which do not move with the machine's
// load:
//
//	go test -c -o /tmp/server.test ./server/
//	scripts/instructions-per-call.sh /tmp/server.test 'CeilingGRPCStream/a2agen/10$'
//	scripts/instructions-per-call.sh /tmp/server.test 'CeilingGRPCStream/a2agen/1$'
//	(and the same for /ceiling/)
func BenchmarkCeilingGRPCStream(b *testing.B) {
	srv, err := server.New(echoCard(), &echo.Agent{ChunkInterval: -1}, server.WithLogger(discardLogger()))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	workers := grpc.NumStreamWorkers(uint32(goruntime.GOMAXPROCS(0)))
	for _, side := range []struct {
		name     string
		opts     []grpc.ServerOption
		register func(*grpc.Server)
	}{
		// As host and examples/echo serve it, and as interop/ceilingpeer
		// serves the ceiling.
		{"a2agen", []grpc.ServerOption{grpc.ForceServerCodecV2(runtime.GRPCServerCodec()), workers},
			func(gs *grpc.Server) { a2av1.RegisterA2AServiceGRPC(gs, srv) }},
		{"ceiling", []grpc.ServerOption{workers}, ceiling.RegisterGRPC},
	} {
		b.Run(side.name, func(b *testing.B) {
			c := grpcBenchClient(b, side.opts, side.register)
			for _, n := range []int{1, 10} {
				b.Run(fmt.Sprint(n), func(b *testing.B) {
					req := &a2av1.SendMessageRequest{Message: userMsg(fmt.Sprintf("stream %d", n))}
					ctx := context.Background()
					b.ReportAllocs()
					for b.Loop() {
						events := 0
						for _, err := range c.SendStreamingMessage(ctx, req) {
							if err != nil {
								b.Fatal(err)
							}
							events++
						}
						if events != n+3 {
							b.Fatalf("%d events, want %d", events, n+3)
						}
					}
				})
			}
		})
	}
}

// grpcBenchClient serves a gRPC server made with opts and set up by
// register on loopback, and returns a generated client of it.
func grpcBenchClient(b *testing.B, opts []grpc.ServerOption, register func(*grpc.Server)) a2av1.A2AServiceClient {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	gs := grpc.NewServer(opts...)
	register(gs)
	go func() { _ = gs.Serve(lis) }()
	cc, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = cc.Close()
		gs.Stop()
	})
	return a2av1.NewA2AServiceGRPCClientFromConn(cc)
}
