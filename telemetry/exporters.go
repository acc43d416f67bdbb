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
	proto, err := otlpProtocol("TRACES")
	if err != nil {
		return nil, err
	}
	var exp sdktrace.SpanExporter
	if proto == "grpc" {
		exp, err = otlptracegrpc.New(ctx)
	} else {
		exp, err = otlptracehttp.New(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("telemetry: OTLP trace exporter (%s): %w", proto, err)
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
			proto, err := otlpProtocol("METRICS")
			if err != nil {
				return nil, nil, err
			}
			var exp sdkmetric.Exporter
			if proto == "grpc" {
				exp, err = otlpmetricgrpc.New(ctx)
			} else {
				exp, err = otlpmetrichttp.New(ctx)
			}
			if err != nil {
				return nil, nil, fmt.Errorf("telemetry: OTLP metric exporter (%s): %w", proto, err)
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
