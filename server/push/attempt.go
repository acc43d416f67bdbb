package push

import (
	"context"
	"net/http"
)

// Attempt is one delivery attempt of a notification, as attempt
// interceptors see it: telemetry, for example, starts a span that continues
// Notification.Trace, puts its traceparent in Header, and times the
// attempt.
type Attempt struct {
	Notification
	// Number counts the attempts of the notification, 1 for the first
	// (Post: always 1).
	Number int
	// Header holds headers to send with the request; an interceptor may
	// add to it. The sender's own headers (Content-Type, Authorization, the
	// token and id headers) take precedence.
	Header http.Header
	// StatusCode is the receiver's answer once it arrived (0 before, or
	// when none did).
	StatusCode int

	body        []byte
	contentType string
}

// AttemptFunc makes one attempt, or passes it on to the next interceptor;
// it returns nil for a 2xx answer, a *StatusError for another, or the
// transport's error.
type AttemptFunc func(ctx context.Context, a *Attempt) error

// WithAttemptInterceptor wraps every delivery attempt (those of the
// dispatcher and of Post) in f, after the interceptors added before (the
// first one outermost). f's function must call next, at most once, and
// return its error; it runs on the sender's goroutines.
func WithAttemptInterceptor(f func(next AttemptFunc) AttemptFunc) Option {
	return func(c *config) {
		if f != nil {
			c.interceptors = append(c.interceptors, f)
		}
	}
}
