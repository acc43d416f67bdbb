package telemetry_test

import (
	"context"
	"log/slog"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	colmetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/telemetry"
)

// grpcCollector is a fake OTLP/gRPC receiver: it notes the names of the
// spans and metrics it is sent.
type grpcCollector struct {
	coltrace.UnimplementedTraceServiceServer
	colmetrics.UnimplementedMetricsServiceServer
	mu             sync.Mutex
	spans, metrics []string
}

func (c *grpcCollector) Export(_ context.Context, req *coltrace.ExportTraceServiceRequest) (*coltrace.ExportTraceServiceResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rs := range req.GetResourceSpans() {
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				c.spans = append(c.spans, s.GetName())
			}
		}
	}
	return &coltrace.ExportTraceServiceResponse{}, nil
}

// metricsService adapts the collector to the metrics service, whose
// method has the trace service's name.
type metricsService struct{ *grpcCollector }

func (m metricsService) Export(_ context.Context, req *colmetrics.ExportMetricsServiceRequest) (*colmetrics.ExportMetricsServiceResponse, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, rm := range req.GetResourceMetrics() {
		for _, sm := range rm.GetScopeMetrics() {
			for _, x := range sm.GetMetrics() {
				m.metrics = append(m.metrics, x.GetName())
			}
		}
	}
	return &colmetrics.ExportMetricsServiceResponse{}, nil
}

// TestFromEnvironmentOTLPGRPC: with OTEL_EXPORTER_OTLP_PROTOCOL=grpc the
// traces and metrics of a call reach an OTLP/gRPC collector (docs/
// operating.md names both transports; the other tests use OTLP/HTTP).
func TestFromEnvironmentOTLPGRPC(t *testing.T) {
	clearOTelEnv(t)
	col := &grpcCollector{}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	coltrace.RegisterTraceServiceServer(gs, col)
	colmetrics.RegisterMetricsServiceServer(gs, metricsService{col})
	go func() { _ = gs.Serve(lis) }()
	t.Cleanup(gs.Stop)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://"+lis.Addr().String())
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")

	s, err := telemetry.FromEnvironment(context.Background(), "Echo Agent", telemetry.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	b := bindings[0]
	c := b.dial(t, b.serve(t, failing{}, runtime.WithInterceptors(s.Interceptors...)))
	if _, err := c.CancelTask(context.Background(), &a2av1.CancelTaskRequest{Id: "t"}); err == nil {
		t.Fatal("CancelTask succeeded")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil { // flushes both exporters
		t.Fatal(err)
	}
	col.mu.Lock()
	defer col.mu.Unlock()
	if !slices.Contains(col.spans, "lf.a2a.v1.A2AService/CancelTask") {
		t.Errorf("the collector received the spans %q, want the CancelTask server span", col.spans)
	}
	if !slices.Contains(col.metrics, telemetry.MetricServerDuration) {
		t.Errorf("the collector received the metrics %q, want %s", col.metrics, telemetry.MetricServerDuration)
	}
}
