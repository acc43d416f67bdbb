package telemetry_test

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/telemetry"
)

// binding serves a handler on loopback and dials it with the generated
// client.
type binding struct {
	name   string // runtime.Binding…
	system string // the rpc.system.name it gets
	serve  func(t *testing.T, h a2av1.A2AServiceHandler, opts ...runtime.HandlerOption) string
	dial   func(t *testing.T, addr string, opts ...runtime.ClientOption) a2av1.A2AServiceClient
}

var bindings = []binding{
	{
		name: runtime.BindingJSONRPC, system: "jsonrpc",
		serve: func(t *testing.T, h a2av1.A2AServiceHandler, opts ...runtime.HandlerOption) string {
			srv := httptest.NewServer(a2av1.NewA2AServiceJSONRPCHandler(h, opts...))
			t.Cleanup(srv.Close)
			return srv.URL
		},
		dial: func(_ *testing.T, addr string, opts ...runtime.ClientOption) a2av1.A2AServiceClient {
			return a2av1.NewA2AServiceJSONRPCClient(addr, opts...)
		},
	},
	{
		name: runtime.BindingHTTPJSON, system: "http",
		serve: func(t *testing.T, h a2av1.A2AServiceHandler, opts ...runtime.HandlerOption) string {
			srv := httptest.NewServer(a2av1.NewA2AServiceRESTHandler(h, opts...))
			t.Cleanup(srv.Close)
			return srv.URL
		},
		dial: func(_ *testing.T, addr string, opts ...runtime.ClientOption) a2av1.A2AServiceClient {
			return a2av1.NewA2AServiceRESTClient(addr, opts...)
		},
	},
	{
		name: runtime.BindingGRPC, system: "grpc",
		serve: func(t *testing.T, h a2av1.A2AServiceHandler, opts ...runtime.HandlerOption) string {
			lis, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			s := grpc.NewServer()
			a2av1.RegisterA2AServiceGRPC(s, h, opts...)
			go func() { _ = s.Serve(lis) }()
			t.Cleanup(s.Stop)
			return lis.Addr().String()
		},
		dial: func(t *testing.T, addr string, opts ...runtime.ClientOption) a2av1.A2AServiceClient {
			cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cc.Close() })
			return a2av1.NewA2AServiceGRPCClientFromConn(cc, opts...)
		},
	},
}

// telemetryKit is an SDK tracer provider exporting to memory and a meter
// provider read by hand.
type telemetryKit struct {
	spans  *tracetest.InMemoryExporter
	tp     *sdktrace.TracerProvider
	reader *sdkmetric.ManualReader
	mp     *sdkmetric.MeterProvider
}

func newKit(t *testing.T) *telemetryKit {
	k := &telemetryKit{spans: tracetest.NewInMemoryExporter(), reader: sdkmetric.NewManualReader()}
	k.tp = sdktrace.NewTracerProvider(sdktrace.WithSyncer(k.spans))
	k.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(k.reader))
	t.Cleanup(func() {
		_ = k.tp.Shutdown(context.Background())
		_ = k.mp.Shutdown(context.Background())
	})
	return k
}

func (k *telemetryKit) options() []telemetry.Option {
	return []telemetry.Option{telemetry.WithTracerProvider(k.tp), telemetry.WithMeterProvider(k.mp)}
}

// find returns the ended spans with that name and kind.
func (k *telemetryKit) find(name string, kind trace.SpanKind) []tracetest.SpanStub {
	var out []tracetest.SpanStub
	for _, s := range k.spans.GetSpans() {
		if s.Name == name && s.SpanKind == kind {
			out = append(out, s)
		}
	}
	return out
}

// waitFor polls find until it has n spans.
func (k *telemetryKit) waitFor(t *testing.T, name string, kind trace.SpanKind, n int) []tracetest.SpanStub {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := k.find(name, kind)
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d %v spans %q, want %d; spans: %v", len(got), kind, name, n, spanNames(k.spans.GetSpans()))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitForSpan polls the ended spans until the one with that id is there.
func (k *telemetryKit) waitForSpan(t *testing.T, id trace.SpanID) tracetest.SpanStub {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		for _, s := range k.spans.GetSpans() {
			if s.SpanContext.SpanID() == id {
				return s
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no span %v; spans: %v", id, spanNames(k.spans.GetSpans()))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func spanNames(spans tracetest.SpanStubs) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.SpanKind.String()+" "+s.Name)
	}
	return out
}

// attr returns a span attribute's value as a string ("" when absent).
func attr(attrs []attribute.KeyValue, key attribute.Key) string {
	for _, a := range attrs {
		if a.Key == key {
			return a.Value.String()
		}
	}
	return ""
}

func wantAttrs(t *testing.T, what string, attrs []attribute.KeyValue, want map[attribute.Key]string) {
	t.Helper()
	for k, v := range want {
		if got := attr(attrs, k); got != v {
			t.Errorf("%s: %s = %q, want %q", what, k, got, v)
		}
	}
}

// collect reads the metrics.
func (k *telemetryKit) collect(t *testing.T) metricdata.ResourceMetrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := k.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	return rm
}

// metric returns the named metric's data.
func metricData(rm metricdata.ResourceMetrics, name string) metricdata.Aggregation {
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == name {
				return m.Data
			}
		}
	}
	return nil
}

// matches reports whether a data point's attributes include want.
func matches(set attribute.Set, want map[attribute.Key]string) bool {
	for k, v := range want {
		got, ok := set.Value(k)
		if !ok || got.String() != v {
			return false
		}
	}
	return true
}

// histogramCount sums the counts of the data points matching want.
func histogramCount(t *testing.T, rm metricdata.ResourceMetrics, name string, want map[attribute.Key]string) uint64 {
	t.Helper()
	h, ok := metricData(rm, name).(metricdata.Histogram[float64])
	if !ok {
		t.Fatalf("metric %s: %T, want a float64 histogram", name, metricData(rm, name))
	}
	var n uint64
	for _, dp := range h.DataPoints {
		if matches(dp.Attributes, want) {
			n += dp.Count
		}
	}
	return n
}

// sum adds up the int64 sum's data points matching want.
func sum(t *testing.T, rm metricdata.ResourceMetrics, name string, want map[attribute.Key]string) int64 {
	t.Helper()
	s, ok := metricData(rm, name).(metricdata.Sum[int64])
	if !ok {
		t.Fatalf("metric %s: %T, want an int64 sum", name, metricData(rm, name))
	}
	var n int64
	for _, dp := range s.DataPoints {
		if matches(dp.Attributes, want) {
			n += dp.Value
		}
	}
	return n
}

// webhook is a loopback receiver of push notifications.
type webhook struct {
	url string
	mu  sync.Mutex
	got []http.Header
}

func newWebhook(t *testing.T) *webhook {
	w := &webhook{}
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.mu.Lock()
		w.got = append(w.got, r.Header.Clone())
		w.mu.Unlock()
		rw.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	w.url = srv.URL + "/hook"
	return w
}

// wait returns the headers of the first n requests.
func (w *webhook) wait(t *testing.T, n int) []http.Header {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		w.mu.Lock()
		got := append([]http.Header(nil), w.got...)
		w.mu.Unlock()
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("the webhook received %d requests, want %d", len(got), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// logBuffer is a JSON slog logger writing to a buffer.
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

func (b *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type sdkEvent = sdktrace.Event

func itoa(n int) string { return strconv.Itoa(n) }
