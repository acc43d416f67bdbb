package telemetry

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/a2agen/a2agen/server/push"
)

// The instruments of webhook deliveries.
const (
	// MetricPushDuration is a histogram of delivery attempts in seconds,
	// with http.response.status_code when the receiver answered and
	// error.type when the attempt failed (the status code, "timeout",
	// "blocked_address" or "_OTHER"). Its count is the number of attempts;
	// those with error.type are the failed ones.
	MetricPushDuration = "a2a.push.attempt.duration"
	// MetricPushGivenUp counts the notifications given up after their
	// last attempt (or an error retrying cannot fix).
	MetricPushGivenUp = "a2a.push.given_up"
)

// PushOptions returns the options that instrument a push.Sender: a client
// span per delivery attempt (named "POST", with the HTTP client attributes
// of the semantic conventions and a2a.task.id, a2a.push.config.id,
// a2a.push.delivery.id, a2a.push.attempt), a child of the trace context
// stored with the delivery — the call that produced the event — whose own
// context the webhook request carries (traceparent); the attempt duration
// histogram; and the given-up counter. ServerOptions includes them for the
// sender the server creates; give them to a sender made with
// push.NewSender yourself.
func PushOptions(opts ...Option) []push.Option {
	return pushOptions(newConfig(opts))
}

func pushOptions(c *config) []push.Option {
	m := c.meter()
	p := &pushTelemetry{
		tracer:   c.tracer(),
		prop:     c.propagator,
		duration: histogram(m, MetricPushDuration, "Duration of webhook delivery attempts."),
		givenUp:  counter(m, MetricPushGivenUp, "{notification}", "Push notifications given up."),
	}
	return []push.Option{push.WithAttemptInterceptor(p.wrap), push.OnFailure(p.failed)}
}

type pushTelemetry struct {
	tracer   trace.Tracer
	prop     propagation.TextMapPropagator
	duration metric.Float64Histogram
	givenUp  metric.Int64Counter
}

func (p *pushTelemetry) wrap(next push.AttemptFunc) push.AttemptFunc {
	return func(ctx context.Context, a *push.Attempt) error {
		if a.Trace.Parent != "" {
			ctx = propagation.TraceContext{}.Extract(ctx, propagation.MapCarrier{"traceparent": a.Trace.Parent, "tracestate": a.Trace.State})
		}
		ctx, span := p.tracer.Start(ctx, "POST", trace.WithSpanKind(trace.SpanKindClient))
		p.prop.Inject(ctx, headerCarrier(a.Header))
		if span.IsRecording() {
			attrs := []attribute.KeyValue{
				semconv.HTTPRequestMethodKey.String("POST"),
				AttrTaskID.String(a.Config.GetTaskId()),
				AttrPushConfigID.String(a.Config.GetId()),
				AttrPushDeliveryID.String(a.ID),
				AttrPushAttempt.Int(a.Number),
			}
			if a.Tenant != "" {
				attrs = append(attrs, AttrTenant.String(a.Tenant))
			}
			span.SetAttributes(appendURL(attrs, a.Config.GetUrl())...)
		}
		start := time.Now()
		err := next(ctx, a)
		d := time.Since(start).Seconds()

		attrs := make([]attribute.KeyValue, 0, 2)
		if a.StatusCode != 0 {
			attrs = append(attrs, semconv.HTTPResponseStatusCodeKey.Int(a.StatusCode))
		}
		if err != nil {
			attrs = append(attrs, semconv.ErrorTypeKey.String(pushErrorType(a, err)))
		}
		p.duration.Record(ctx, d, metric.WithAttributes(attrs...))
		if span.IsRecording() {
			span.SetAttributes(attrs...)
			if err != nil {
				span.SetStatus(codes.Error, err.Error())
			}
		}
		span.End()
		return err
	}
}

func (p *pushTelemetry) failed(push.Failure) {
	p.givenUp.Add(context.Background(), 1)
}

// pushErrorType is the error.type of a failed attempt.
func pushErrorType(a *push.Attempt, err error) string {
	var se *push.StatusError
	var ne net.Error
	switch {
	case errors.As(err, &se):
		return strconv.Itoa(se.StatusCode)
	case a.StatusCode != 0:
		return strconv.Itoa(a.StatusCode)
	case errors.Is(err, push.ErrBlockedAddress):
		return "blocked_address"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	}
	return semconv.ErrorTypeOther.Value.AsString()
}

// appendURL adds the webhook's address: url.full without query and
// fragment (webhook URLs sometimes carry secrets there), server.address
// and server.port.
func appendURL(attrs []attribute.KeyValue, raw string) []attribute.KeyValue {
	u, err := url.Parse(raw)
	if err != nil {
		return attrs
	}
	full := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}
	attrs = append(attrs, semconv.URLFullKey.String(full.String()), semconv.ServerAddressKey.String(u.Hostname()))
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	if n, err := strconv.Atoi(port); err == nil {
		attrs = append(attrs, semconv.ServerPortKey.Int(n))
	}
	return attrs
}
