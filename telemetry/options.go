package telemetry

import (
	"log/slog"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of every span and instrument of
// the package.
const ScopeName = "github.com/a2agen/a2agen/telemetry"

// Option configures the instrumentation of this package.
type Option func(*config)

type config struct {
	tracerProvider trace.TracerProvider
	meterProvider  metric.MeterProvider
	propagator     propagation.TextMapPropagator
	// w3cOnly: propagator is the default one (W3C Trace Context and
	// Baggage), whose common case w3c.go handles itself.
	w3cOnly    bool
	logger     *slog.Logger
	requestLog bool
}

func newConfig(opts []Option) *config {
	c := &config{requestLog: true}
	for _, o := range opts {
		o(c)
	}
	if c.tracerProvider == nil {
		c.tracerProvider = otel.GetTracerProvider()
	}
	if c.meterProvider == nil {
		c.meterProvider = otel.GetMeterProvider()
	}
	if c.propagator == nil {
		c.propagator = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
		c.w3cOnly = true
	}
	if c.logger == nil {
		c.logger = slog.Default()
	}
	return c
}

func (c *config) tracer() trace.Tracer {
	return c.tracerProvider.Tracer(ScopeName, trace.WithSchemaURL(semconv.SchemaURL))
}

func (c *config) meter() metric.Meter {
	return c.meterProvider.Meter(ScopeName, metric.WithSchemaURL(semconv.SchemaURL))
}

// WithTracerProvider sets the tracer provider; the default is the global
// one (otel.GetTracerProvider), a no-op until a program sets another.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(c *config) { c.tracerProvider = tp }
}

// WithMeterProvider sets the meter provider; the default is the global one
// (otel.GetMeterProvider).
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(c *config) { c.meterProvider = mp }
}

// WithPropagator sets how trace context travels in headers: read from the
// calls a server receives, written into the calls a client makes and into
// webhook requests. The default is W3C Trace Context and Baggage, whatever
// the global propagator is. (The trace context stored with a queued push
// delivery is always W3C traceparent/tracestate.)
func WithPropagator(p propagation.TextMapPropagator) Option {
	return func(c *config) { c.propagator = p }
}

// WithLogger sets the logger of FromEnvironment's request log and of
// OpenTelemetry's own errors (default slog.Default()).
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.logger = l }
}

// WithRequestLog turns FromEnvironment's request log on (the default) or
// off.
func WithRequestLog(on bool) Option {
	return func(c *config) { c.requestLog = on }
}
