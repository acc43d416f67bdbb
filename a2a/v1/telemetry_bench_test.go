package a2av1_test

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/telemetry"
)

// The telemetry benchmarks measure what observability costs per unary
// round trip (a generated client calling a generated handler over loopback
// TCP, SendMessage with the gRPC benchmarks' request and answer), on each
// binding, in three setups:
//
//	off      no interceptors: the runtime's fast path
//	control  the same again, on a server and connection of its own: the
//	         benchmark's noise floor (control/off should be 1)
//	chain    one interceptor that does nothing, on both sides: what the
//	         runtime's interceptor chain itself costs
//	noop     telemetry.Tracing and telemetry.Metrics on the server and the
//	         client, with OpenTelemetry's default (no-op) providers: what
//	         every call pays when telemetry is compiled in but not set up
//	tracing  the same with an SDK tracer provider that samples every span
//	         and exports them in batches (sdktrace.WithBatcher) to memory
//	         (metrics no-op)
//	synced   tracing with each span handed to the in-memory exporter as it
//	         ends (sdktrace.WithSyncer, as tests use that exporter)
//	full     tracing plus SDK metrics (a manual reader)
//	server   tracing on the server only, the client uninstrumented: what an
//	         agent pays for tracing its own calls when its callers do not
//	         trace (the round trip still includes the client's work)
//	client   tracing on the client only, the server uninstrumented: what a
//	         program pays for tracing its calls to an agent
//	bare     the floor under tracing: the same spans (names, kinds, the
//	         same number of attributes) and the same W3C propagation,
//	         written directly on the OpenTelemetry API as a minimal
//	         interceptor (bareTracing) instead of telemetry.Tracing; what
//	         tracing costs when the SDK and the wire do all of the work
//
// BenchmarkTelemetryInterleaved gives the ratios (noop/off ≤ 1.02 and
// tracing/off ≤ 1.15 are the targets, docs/performance.md);
// BenchmarkTelemetry gives ns/op and allocs/op of each setup on its own.
//
//	go test -run '^$' -bench 'Telemetry' -benchmem -count 5 ./a2a/v1/

// telemetrySetups are the setups measured, by name.
type telemetrySetup struct {
	name       string
	opts       func(b *testing.B) []telemetry.Option // nil: no interceptors
	serverOnly bool                                  // no interceptors on the client
	clientOnly bool                                  // no interceptors on the server
	// bare: bareTracing with the provider of opts, not telemetry's interceptors
	bare bool
}

var telemetrySetups = []telemetrySetup{
	{name: "off"},
	{name: "control"},
	{name: "chain"},
	{name: "noop", opts: func(*testing.B) []telemetry.Option { return []telemetry.Option{} }},
	{name: "tracing", opts: func(b *testing.B) []telemetry.Option {
		return []telemetry.Option{telemetry.WithTracerProvider(benchTracerProvider(b, batched))}
	}},
	{name: "synced", opts: func(b *testing.B) []telemetry.Option {
		return []telemetry.Option{telemetry.WithTracerProvider(benchTracerProvider(b, sdktrace.WithSyncer))}
	}},
	{name: "full", opts: func(b *testing.B) []telemetry.Option {
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
		b.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
		return []telemetry.Option{telemetry.WithTracerProvider(benchTracerProvider(b, batched)), telemetry.WithMeterProvider(mp)}
	}},
	{name: "server", serverOnly: true, opts: tracingOnly},
	{name: "client", clientOnly: true, opts: tracingOnly},
	{name: "bare", bare: true, opts: tracingOnly},
}

// tracingOnly is the tracing setup's configuration: the batched in-memory
// tracer provider, metrics no-op.
func tracingOnly(b *testing.B) []telemetry.Option {
	return []telemetry.Option{telemetry.WithTracerProvider(benchTracerProvider(b, batched))}
}

func batched(e sdktrace.SpanExporter) sdktrace.TracerProviderOption { return sdktrace.WithBatcher(e) }

// benchTracerProvider samples every span and exports them to an in-memory
// exporter, emptied now and then so that memory stays flat, through the
// span processor that export gives: sdktrace.WithSyncer (each span handed
// to the exporter as it ends, the way tests use the in-memory exporter) or
// batched (sdktrace.WithBatcher's queue and goroutine, the way a program
// sends spans to a collector).
func benchTracerProvider(b *testing.B, export func(sdktrace.SpanExporter) sdktrace.TracerProviderOption) *sdktrace.TracerProvider {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()), export(exp))
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				exp.Reset()
			}
		}
	}()
	b.Cleanup(func() {
		close(done)
		_ = tp.Shutdown(context.Background())
	})
	return tp
}

// telemetryBinding starts a server of one binding with the given handler
// options and returns a client with the given client options.
type telemetryBinding struct {
	name string
	dial func(b *testing.B, h a2av1.A2AServiceHandler, hopts []runtime.HandlerOption, copts []runtime.ClientOption) a2av1.A2AServiceClient
}

var telemetryBindings = []telemetryBinding{
	{"JSONRPC", func(b *testing.B, h a2av1.A2AServiceHandler, hopts []runtime.HandlerOption, copts []runtime.ClientOption) a2av1.A2AServiceClient {
		srv := httptest.NewServer(a2av1.NewA2AServiceJSONRPCHandler(h, hopts...))
		b.Cleanup(srv.Close)
		return a2av1.NewA2AServiceJSONRPCClient(srv.URL, copts...)
	}},
	{"REST", func(b *testing.B, h a2av1.A2AServiceHandler, hopts []runtime.HandlerOption, copts []runtime.ClientOption) a2av1.A2AServiceClient {
		srv := httptest.NewServer(a2av1.NewA2AServiceRESTHandler(h, hopts...))
		b.Cleanup(srv.Close)
		return a2av1.NewA2AServiceRESTClient(srv.URL, copts...)
	}},
	{"GRPC", func(b *testing.B, h a2av1.A2AServiceHandler, hopts []runtime.HandlerOption, copts []runtime.ClientOption) a2av1.A2AServiceClient {
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		s := grpc.NewServer(benchGRPCServerOptions...)
		a2av1.RegisterA2AServiceGRPC(s, h, hopts...)
		go func() { _ = s.Serve(lis) }()
		b.Cleanup(s.Stop)
		cc, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = cc.Close() })
		return a2av1.NewA2AServiceGRPCClientFromConn(cc, copts...)
	}},
}

// telemetryClient is a client of a fresh server of binding, both
// instrumented as setup says.
func telemetryClient(b *testing.B, bd telemetryBinding, setup telemetrySetup) a2av1.A2AServiceClient {
	hopts := []runtime.HandlerOption{runtime.WithLogger(slog.New(slog.DiscardHandler))}
	var copts []runtime.ClientOption
	switch {
	case setup.name == "chain":
		pass := runtime.InterceptorFuncs{}
		hopts = append(hopts, runtime.WithInterceptors(pass))
		copts = append(copts, runtime.WithClientInterceptors(pass))
	case setup.bare:
		tp := benchTracerProvider(b, batched)
		hopts = append(hopts, runtime.WithInterceptors(bareTracing(tp)))
		copts = append(copts, runtime.WithClientInterceptors(bareTracing(tp)))
	case setup.opts != nil:
		opts := setup.opts(b)
		if !setup.clientOnly {
			hopts = append(hopts, runtime.WithInterceptors(telemetry.Tracing(opts...), telemetry.Metrics(opts...)))
		}
		if !setup.serverOnly {
			copts = append(copts, runtime.WithClientInterceptors(telemetry.Tracing(opts...), telemetry.Metrics(opts...)))
		}
	}
	return bd.dial(b, grpcBenchAgent{grpcBenchAnswers: newGRPCBenchAnswers()}, hopts, copts)
}

// bareTracing is the least an interceptor can do for the spans
// telemetry.Tracing makes on SendMessage: a server span continuing the
// caller's W3C trace context, a client span whose context goes out with
// the call, each with as many attributes as telemetry.Tracing gives it
// (server: system, method, binding, version, task and context ids, peer
// address; client: the same with the agent's address and port for the
// peer), all of them known in advance but the ids. It reads only the
// ids and caches everything else: the benchmark's floor, what
// the OpenTelemetry SDK, its propagator and the binding's headers cost.
func bareTracing(tp trace.TracerProvider) runtime.Interceptor {
	tr := tp.Tracer("bench")
	prop := propagation.TraceContext{}
	const method = "lf.a2a.v1.A2AService/SendMessage"
	start := map[bool][]trace.SpanStartOption{
		false: {trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(
			attribute.String("rpc.system.name", "bench"), attribute.String("rpc.method", method))},
		true: {trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
			attribute.String("rpc.system.name", "bench"), attribute.String("rpc.method", method),
			attribute.String("server.address", "127.0.0.1"), attribute.Int("server.port", 8080))},
	}
	return runtime.InterceptorFuncs{Unary: func(next runtime.UnaryFunc) runtime.UnaryFunc {
		return func(ctx context.Context, call *runtime.CallInfo, req proto.Message) (proto.Message, error) {
			if !call.Client {
				ctx = prop.Extract(ctx, propagation.HeaderCarrier(call.Header))
			}
			ctx, span := tr.Start(ctx, method, start[call.Client]...)
			if call.Client {
				prop.Inject(ctx, propagation.HeaderCarrier(call.Header))
			}
			resp, err := next(ctx, call, req)
			task := resp.(*a2av1.SendMessageResponse).GetTask()
			end := [5]attribute.KeyValue{
				attribute.String("a2a.protocol.binding", "bench"), attribute.String("a2a.protocol.version", "1.0"),
				attribute.String("a2a.task.id", task.GetId()), attribute.String("a2a.context.id", task.GetContextId()),
				attribute.String("network.peer.address", "127.0.0.1"),
			}
			if call.Client {
				span.SetAttributes(end[:4]...)
			} else {
				span.SetAttributes(end[:]...)
			}
			span.End()
			return resp, err
		}
	}}
}

func telemetryCall(b *testing.B, c a2av1.A2AServiceClient, req *a2av1.SendMessageRequest) {
	if resp, err := c.SendMessage(context.Background(), req); err != nil || resp.GetTask() == nil {
		b.Fatalf("SendMessage = %v, %v", resp, err)
	}
}

// BenchmarkTelemetry is one SendMessage round trip per binding and setup.
func BenchmarkTelemetry(b *testing.B) {
	req := grpcBenchRequest()
	for _, bd := range telemetryBindings {
		for _, setup := range telemetrySetups {
			b.Run(bd.name+"/"+setup.name, func(b *testing.B) {
				c := telemetryClient(b, bd, setup)
				telemetryCall(b, c, req) // connect
				b.ReportAllocs()
				for b.Loop() {
					telemetryCall(b, c, req)
				}
			})
		}
	}
}

// BenchmarkTelemetryInterleaved answers "how much does telemetry add to a
// round trip" with one ratio per binding and setup. Each iteration makes
// one call in every setup, in a random order, and times each, so that drift
// on the machine hits all setups alike. Metrics: <setup>-ns/call
// (wall time) and <setup>/off (1.02 = 2 % more per round trip than without
// interceptors), and the same for the CPU time of the process
// (<setup>-cpu-ns/call, <setup>/off-cpu: client and server together, which
// other load on the machine disturbs less than wall time); <setup>/off-p50
// is the ratio of the median calls, which the calls that other work on the
// machine held up (a preempted thread, a late wake-up) do not move: on a
// loaded machine a few such calls make most of the spread of the sums.
//
//	go test -run '^$' -bench TelemetryInterleaved -count 5 ./a2a/v1/
func BenchmarkTelemetryInterleaved(b *testing.B) {
	req := grpcBenchRequest()
	for _, bd := range telemetryBindings {
		b.Run(bd.name, func(b *testing.B) {
			// Servers and connections are made in a random order too, so
			// that none is always the first (or last) one made.
			clients := make([]a2av1.A2AServiceClient, len(telemetrySetups))
			for _, i := range rand.Perm(len(telemetrySetups)) {
				clients[i] = telemetryClient(b, bd, telemetrySetups[i])
				telemetryCall(b, clients[i], req)
			}
			wall := make([]time.Duration, len(clients))
			cpu := make([]time.Duration, len(clients))
			each := make([][]time.Duration, len(clients)) // every call's wall time
			n := 0
			order := make([]int, len(clients))
			for i := range order {
				order[i] = i
			}
			for b.Loop() {
				// A new order every iteration: no setup always follows the
				// same one (whose garbage it would pay for).
				rand.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
				for _, k := range order {
					c0, t0 := processCPU(), time.Now()
					telemetryCall(b, clients[k], req)
					d := time.Since(t0)
					wall[k] += d
					cpu[k] += processCPU() - c0
					each[k] = append(each[k], d)
				}
				n++
			}
			medians := make([]time.Duration, len(clients))
			for i := range each {
				slices.Sort(each[i])
				medians[i] = each[i][len(each[i])/2]
			}
			for i, setup := range telemetrySetups {
				b.ReportMetric(float64(wall[i].Nanoseconds())/float64(n), setup.name+"-ns/call")
				b.ReportMetric(float64(cpu[i].Nanoseconds())/float64(n), setup.name+"-cpu-ns/call")
				if i > 0 {
					b.ReportMetric(float64(wall[i])/float64(wall[0]), setup.name+"/off")
					b.ReportMetric(float64(medians[i])/float64(medians[0]), setup.name+"/off-p50")
					if cpu[0] > 0 {
						b.ReportMetric(float64(cpu[i])/float64(cpu[0]), setup.name+"/off-cpu")
					}
				}
			}
		})
	}
}
