package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"

	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
	"github.com/a2agen/a2agen/server/push"
)

// Setup is the observability of an agent, as FromEnvironment configured
// it. Every field may be empty: a program appends them to its own options.
type Setup struct {
	// Interceptors wrap every call of the agent's handlers
	// (runtime.WithInterceptors; give the same ones to every binding):
	// Tracing, Metrics and RequestLog, in that order, each when on.
	Interceptors []runtime.Interceptor
	// ClientInterceptors instrument the A2A clients the agent makes
	// (runtime.WithClientInterceptors): Tracing and Metrics.
	ClientInterceptors []runtime.Interceptor
	// ServerOptions instrument the default server (task transitions, the
	// trace context of push deliveries, the server's own push sender).
	ServerOptions []server.Option
	// PushOptions instrument a push.Sender the program makes itself.
	PushOptions []push.Option
	// MetricsHandler serves the metrics in the Prometheus exposition format
	// when OTEL_METRICS_EXPORTER names prometheus, else nil. Mount it at
	// /metrics.
	MetricsHandler http.Handler
	// Shutdown flushes what is buffered and stops the exporters; call it
	// after the agent stopped serving. It is never nil.
	Shutdown func(context.Context) error
}

// FromEnvironment sets up tracing, metrics and the request log of an agent
// from the standard OpenTelemetry environment variables:
//
//   - OTEL_SDK_DISABLED=true turns tracing and metrics off (the request
//     log stays).
//   - OTEL_TRACES_EXPORTER: otlp or none. The default is otlp when an OTLP
//     endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT or
//     OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), none otherwise — unlike the
//     specification's plain otlp, so that an agent without a collector
//     does not log export failures forever.
//   - OTEL_METRICS_EXPORTER: otlp, prometheus or none, or a comma-separated
//     list; the default likewise (OTEL_EXPORTER_OTLP_METRICS_ENDPOINT).
//     prometheus fills Setup.MetricsHandler (the host serves it; the
//     exporter's own OTEL_EXPORTER_PROMETHEUS_HOST/PORT are not used).
//   - OTEL_EXPORTER_OTLP_PROTOCOL (and the _TRACES_/_METRICS_ variants):
//     http/protobuf (the default) or grpc. The exporters read the other
//     OTEL_EXPORTER_OTLP_* variables themselves (endpoint, headers,
//     timeout, compression, certificates), the SDK reads OTEL_TRACES_SAMPLER,
//     OTEL_BSP_* and OTEL_METRIC_EXPORT_INTERVAL.
//   - OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES describe the service;
//     the service name defaults to serviceName (the agent card's name).
//   - OTEL_PROPAGATORS: tracecontext and baggage (the default), or none;
//     others are not built in and are skipped with a warning.
//
// The providers and the propagator it makes become OpenTelemetry's global
// ones, so that instrumentation inside the agent's skills reports to the
// same place. An unsupported exporter or protocol is an error.
func FromEnvironment(ctx context.Context, serviceName string, opts ...Option) (*Setup, error) {
	c := newConfig(opts)
	s := &Setup{Shutdown: func(context.Context) error { return nil }}
	if err := c.fromEnvironment(ctx, s, serviceName); err != nil {
		return nil, err
	}
	if c.requestLog { // last: it logs with the span of Tracing
		s.Interceptors = append(s.Interceptors, RequestLog(c.logger))
	}
	return s, nil
}

// fromEnvironment fills s with tracing and metrics as the environment says.
func (c *config) fromEnvironment(ctx context.Context, s *Setup, serviceName string) error {
	if strings.EqualFold(strings.TrimSpace(os.Getenv("OTEL_SDK_DISABLED")), "true") {
		return nil
	}
	traces, err := exporterNames("OTEL_TRACES_EXPORTER", "TRACES", "otlp", "none")
	if err != nil {
		return err
	}
	metrics, err := exporterNames("OTEL_METRICS_EXPORTER", "METRICS", "otlp", "prometheus", "none")
	if err != nil {
		return err
	}
	if len(traces) == 0 && len(metrics) == 0 {
		return nil
	}
	res, err := newResource(ctx, serviceName)
	if err != nil {
		return err
	}
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		c.logger.Warn("telemetry: OpenTelemetry failed", "error", err)
	}))
	prop := propagatorFromEnv(c)
	otel.SetTextMapPropagator(prop)

	var shutdowns []func(context.Context) error
	s.Shutdown = func(ctx context.Context) error {
		var errs []error
		for _, f := range shutdowns {
			errs = append(errs, f(ctx))
		}
		return errors.Join(errs...)
	}
	inst := []Option{WithPropagator(prop)}
	if len(traces) > 0 {
		tp, err := newTracerProvider(ctx, res)
		if err != nil {
			return err
		}
		otel.SetTracerProvider(tp)
		shutdowns = append(shutdowns, tp.Shutdown)
		inst = append(inst, WithTracerProvider(tp))
	}
	if len(metrics) > 0 {
		mp, handler, err := newMeterProvider(ctx, res, metrics)
		if err != nil {
			_ = s.Shutdown(ctx)
			return err
		}
		otel.SetMeterProvider(mp)
		shutdowns = append(shutdowns, mp.Shutdown)
		inst = append(inst, WithMeterProvider(mp))
		s.MetricsHandler = handler
	}
	if len(traces) > 0 {
		s.Interceptors = append(s.Interceptors, Tracing(inst...))
		s.ClientInterceptors = append(s.ClientInterceptors, Tracing(inst...))
	}
	if len(metrics) > 0 {
		s.Interceptors = append(s.Interceptors, Metrics(inst...))
		s.ClientInterceptors = append(s.ClientInterceptors, Metrics(inst...))
	}
	ic := newConfig(inst)
	s.ServerOptions = ServerOptions(inst...)
	s.PushOptions = pushOptions(ic)
	return nil
}

// exporterNames reads the exporters of a signal: the variable's
// comma-separated names without "none", or otlp when the variable is unset
// and an OTLP endpoint for the signal is. Names outside supported fail.
func exporterNames(variable, signal string, supported ...string) ([]string, error) {
	v := strings.TrimSpace(os.Getenv(variable))
	if v == "" {
		if os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_"+signal+"_ENDPOINT") != "" {
			return []string{"otlp"}, nil
		}
		return nil, nil
	}
	var out []string
	for _, name := range strings.Split(v, ",") {
		name = strings.ToLower(strings.TrimSpace(name))
		switch {
		case name == "" || name == "none":
		case !contains(supported, name):
			return nil, fmt.Errorf("telemetry: %s=%q: exporter %q is not supported (use %s)", variable, v, name, strings.Join(supported, ", "))
		case !contains(out, name):
			out = append(out, name)
		}
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// otlpProtocol is the OTLP protocol of a signal: grpc or http/protobuf.
func otlpProtocol(signal string) (string, error) {
	variable := "OTEL_EXPORTER_OTLP_" + signal + "_PROTOCOL"
	p := strings.TrimSpace(os.Getenv(variable))
	if p == "" {
		variable = "OTEL_EXPORTER_OTLP_PROTOCOL"
		p = strings.TrimSpace(os.Getenv(variable))
	}
	switch p {
	case "", "http/protobuf":
		return "http/protobuf", nil
	case "grpc":
		return "grpc", nil
	}
	return "", fmt.Errorf("telemetry: %s=%q is not supported (use http/protobuf or grpc)", variable, p)
}

// newResource describes the service: serviceName unless
// OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES say otherwise, and the SDK.
func newResource(ctx context.Context, serviceName string) (*resource.Resource, error) {
	if serviceName == "" {
		serviceName = "unknown_service:" + filepath.Base(os.Args[0])
	}
	res, err := resource.New(ctx,
		resource.WithSchemaURL(semconv.SchemaURL),
		resource.WithAttributes(semconv.ServiceName(serviceName)),
		resource.WithTelemetrySDK(),
		resource.WithFromEnv(),
	)
	if err != nil && res == nil {
		return nil, fmt.Errorf("telemetry: describing the service: %w", err)
	}
	return res, nil // a partial resource (a detector failed) is still useful
}

// propagatorFromEnv reads OTEL_PROPAGATORS.
func propagatorFromEnv(c *config) propagation.TextMapPropagator {
	v := strings.TrimSpace(os.Getenv("OTEL_PROPAGATORS"))
	if v == "" {
		return propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	}
	var props []propagation.TextMapPropagator
	for _, name := range strings.Split(v, ",") {
		switch name = strings.ToLower(strings.TrimSpace(name)); name {
		case "tracecontext":
			props = append(props, propagation.TraceContext{})
		case "baggage":
			props = append(props, propagation.Baggage{})
		case "", "none":
		default:
			c.logger.Warn("telemetry: OTEL_PROPAGATORS names a propagator that is not built in; skipped", "propagator", name)
		}
	}
	return propagation.NewCompositeTextMapPropagator(props...)
}

// newTracerProvider exports spans over OTLP in batches.
func newTracerProvider(ctx context.Context, res *resource.Resource) (*sdktrace.TracerProvider, error) {
	exp, err := newOTLPTraceExporter(ctx)
	if err != nil {
		return nil, err
	}
	return sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res)), nil
}
