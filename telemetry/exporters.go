package telemetry

import (
	"context"
	"fmt"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// The exporters FromEnvironment builds. The OTLP exporters read their
// OTEL_EXPORTER_OTLP_* settings themselves; creating one does not connect.

func newOTLPTraceExporter(ctx context.Context) (sdktrace.SpanExporter, error) {
	return newOTLPExporter(ctx, "TRACES", "trace",
		func(ctx context.Context) (sdktrace.SpanExporter, error) { return otlptracegrpc.New(ctx) },
		func(ctx context.Context) (sdktrace.SpanExporter, error) { return otlptracehttp.New(ctx) })
}

func newOTLPMetricExporter(ctx context.Context) (sdkmetric.Exporter, error) {
	return newOTLPExporter(ctx, "METRICS", "metric",
		func(ctx context.Context) (sdkmetric.Exporter, error) { return otlpmetricgrpc.New(ctx) },
		func(ctx context.Context) (sdkmetric.Exporter, error) { return otlpmetrichttp.New(ctx) })
}

// newOTLPExporter makes the OTLP exporter of signal (TRACES, METRICS: what
// it exports, in errors) over the protocol its variables name: overGRPC for
// grpc, else overHTTP.
func newOTLPExporter[E any](ctx context.Context, signal, what string, overGRPC, overHTTP func(context.Context) (E, error)) (E, error) {
	var none E
	proto, err := otlpProtocol(signal)
	if err != nil {
		return none, err
	}
	newExporter := overHTTP
	if proto == "grpc" {
		newExporter = overGRPC
	}
	exp, err := newExporter(ctx)
	if err != nil {
		return none, fmt.Errorf("telemetry: OTLP %s exporter (%s): %w", what, proto, err)
	}
	return exp, nil
}

// newMeterProvider reads metrics for each exporter named: a periodic OTLP
// export, and a Prometheus registry behind the returned handler.
func newMeterProvider(ctx context.Context, res *resource.Resource, exporters []string) (*sdkmetric.MeterProvider, http.Handler, error) {
	opts := []sdkmetric.Option{sdkmetric.WithResource(res)}
	var handler http.Handler
	for _, name := range exporters {
		switch name {
		case "otlp":
			exp, err := newOTLPMetricExporter(ctx)
			if err != nil {
				return nil, nil, err
			}
			opts = append(opts, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)))
		case "prometheus":
			reader, h, err := newPrometheus()
			if err != nil {
				return nil, nil, err
			}
			opts = append(opts, sdkmetric.WithReader(reader))
			handler = h
		}
	}
	return sdkmetric.NewMeterProvider(opts...), handler, nil
}

// newPrometheus is a reader of the meter provider that a Prometheus
// registry of its own collects (with the Go runtime's and the process's
// metrics), and the handler that serves it.
func newPrometheus() (sdkmetric.Reader, http.Handler, error) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	reader, err := otelprom.New(otelprom.WithRegisterer(reg))
	if err != nil {
		return nil, nil, fmt.Errorf("telemetry: Prometheus exporter: %w", err)
	}
	return reader, promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}), nil
}
