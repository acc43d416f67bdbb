package telemetry_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/telemetry"
)

// clearOTelEnv unsets the variables FromEnvironment reads, for the test.
func clearOTelEnv(t *testing.T) {
	for _, v := range []string{"OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT",
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL",
		"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "OTEL_SERVICE_NAME",
		"OTEL_RESOURCE_ATTRIBUTES", "OTEL_PROPAGATORS"} {
		t.Setenv(v, "")
	}
	t.Cleanup(func() { // FromEnvironment installs global providers
		otel.SetTracerProvider(tracenoop.NewTracerProvider())
		otel.SetMeterProvider(metricnoop.NewMeterProvider())
		otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator())
	})
}

// TestFromEnvironmentOff: without OTLP endpoint or exporter, and with
// OTEL_SDK_DISABLED, only the request log is on.
func TestFromEnvironmentOff(t *testing.T) {
	for _, env := range []map[string]string{
		{},
		{"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_METRICS_EXPORTER": "prometheus"},
		{"OTEL_TRACES_EXPORTER": "none", "OTEL_METRICS_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"},
	} {
		clearOTelEnv(t)
		for k, v := range env {
			t.Setenv(k, v)
		}
		s, err := telemetry.FromEnvironment(context.Background(), "agent")
		if err != nil {
			t.Fatalf("%v: %v", env, err)
		}
		if len(s.Interceptors) != 1 || len(s.ClientInterceptors) != 0 || len(s.ServerOptions) != 0 || s.MetricsHandler != nil {
			t.Errorf("%v: %d interceptors, %d client interceptors, %d server options, handler %v; want the request log only",
				env, len(s.Interceptors), len(s.ClientInterceptors), len(s.ServerOptions), s.MetricsHandler)
		}
		if _, ok := s.Interceptors[0].(runtime.FailureLogger); !ok {
			t.Errorf("%v: the interceptor is %T, want the request log", env, s.Interceptors[0])
		}
		if err := s.Shutdown(context.Background()); err != nil {
			t.Error(err)
		}
		s, _ = telemetry.FromEnvironment(context.Background(), "agent", telemetry.WithRequestLog(false))
		if len(s.Interceptors) != 0 {
			t.Errorf("%v: WithRequestLog(false) left %d interceptors", env, len(s.Interceptors))
		}
	}
}

// TestFromEnvironmentRefuses: exporters and protocols that are not built
// in are errors, not silently lost telemetry.
func TestFromEnvironmentRefuses(t *testing.T) {
	for _, env := range []map[string]string{
		{"OTEL_TRACES_EXPORTER": "zipkin"},
		{"OTEL_METRICS_EXPORTER": "otlp,console"},
		{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"},
	} {
		clearOTelEnv(t)
		for k, v := range env {
			t.Setenv(k, v)
		}
		if _, err := telemetry.FromEnvironment(context.Background(), "agent"); err == nil {
			t.Errorf("%v: no error", env)
		}
	}
}

// collector is a fake OTLP/HTTP receiver.
type collector struct {
	mu    sync.Mutex
	paths []string
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	c.mu.Lock()
	c.paths = append(c.paths, r.URL.Path+" "+r.Header.Get("Content-Type"))
	c.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.WriteHeader(http.StatusOK)
}

// TestFromEnvironment: OTLP traces to the endpoint of the environment,
// Prometheus metrics from the handler, the service name from the card
// unless OTEL_SERVICE_NAME says otherwise.
func TestFromEnvironment(t *testing.T) {
	clearOTelEnv(t)
	col := &collector{}
	srv := httptest.NewServer(col)
	t.Cleanup(srv.Close)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
	t.Setenv("OTEL_METRICS_EXPORTER", "prometheus")
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment.name=test")
	logs := &logBuffer{}
	s, err := telemetry.FromEnvironment(context.Background(), "Echo Agent", telemetry.WithLogger(logs.logger()))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Interceptors) != 3 || len(s.ClientInterceptors) != 2 || s.MetricsHandler == nil || len(s.ServerOptions) == 0 || len(s.PushOptions) == 0 {
		t.Fatalf("setup: %d interceptors, %d client interceptors, handler %v", len(s.Interceptors), len(s.ClientInterceptors), s.MetricsHandler)
	}
	b := bindings[0]
	c := b.dial(t, b.serve(t, failing{}, runtime.WithInterceptors(s.Interceptors...)), runtime.WithClientInterceptors(s.ClientInterceptors...))
	if _, err := c.CancelTask(context.Background(), &a2av1.CancelTaskRequest{Id: "t"}); err == nil {
		t.Fatal("CancelTask succeeded")
	}

	rec := httptest.NewRecorder()
	s.MetricsHandler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	body := rec.Body.String()
	for _, want := range []string{
		`rpc_server_call_duration_seconds_count{`, `rpc_method="lf.a2a.v1.A2AService/CancelTask"`, `error_type="UNSUPPORTED_OPERATION"`,
		`rpc_client_call_duration_seconds_count{`, `service_name="Echo Agent"`, `go_goroutines`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s:\n%s", want, body)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	col.mu.Lock()
	defer col.mu.Unlock()
	if len(col.paths) == 0 || col.paths[0] != "/v1/traces application/x-protobuf" {
		t.Errorf("the collector received %v, want spans on /v1/traces", col.paths)
	}
	if !strings.Contains(logs.String(), `"msg":"a2a call"`) {
		t.Errorf("no request log line:\n%s", logs)
	}
}
