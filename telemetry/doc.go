// Package telemetry makes an A2A agent observable: OpenTelemetry traces and
// metrics for every call on every binding, W3C trace-context propagation
// (from callers, through the generated clients, and into push-notification
// webhooks), task and push-delivery metrics, and a structured request log
// (log/slog).
//
// Everything is built on hooks of the core packages, which do not import
// OpenTelemetry themselves:
//
//   - runtime.Interceptor: Tracing, Metrics and RequestLog wrap the calls of
//     a handler (runtime.WithInterceptors) or of a client
//     (runtime.WithClientInterceptors); CallInfo.Client tells them the side.
//   - server.WithTaskObserver and server.WithTraceContext (ServerOptions):
//     task state transitions, and the trace context stored with each queued
//     push delivery (store.TraceContext).
//   - push.WithAttemptInterceptor and push.OnFailure (PushOptions): a span
//     and metrics per webhook attempt, with the traceparent sent to the
//     receiver.
//
// Without options everything uses the global OpenTelemetry providers,
// which are no-ops until a program installs real ones, so instrumented
// code costs next to nothing when telemetry is off. FromEnvironment
// installs them from the standard OTEL_* environment variables (OTLP
// exporters, OTEL_SDK_DISABLED, an optional Prometheus handler) and returns
// everything an agent needs in one Setup; host.Main uses it.
//
// What is recorded (names, attributes, units) is listed in
// docs/operating.md, section Observability.
package telemetry
