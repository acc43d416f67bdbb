// Package idle lets the interceptors of this module tell the runtime, call
// by call, that they would pass a call on untouched (telemetry's, while
// OpenTelemetry's providers are no-ops). When every interceptor of a
// handler or a client says so for a call, the runtime serves or makes that
// call without the chain, as it does without interceptors: no
// interceptor frames, no CallInfo of the client call, no copy of its
// headers.
//
// Only packages of this module can name Token, so only their interceptors
// can claim this; any other interceptor is always in the chain.
package idle

import "context"

// Token is the argument of Interceptor's method.
type Token struct{}

// Interceptor is an interceptor that can tell whether it would do nothing
// for a call.
type Interceptor interface {
	// Idle reports whether the interceptor would only pass on the call
	// that is made (client) or served with ctx. It is asked before every
	// call, so it must be cheap.
	Idle(ctx context.Context, client bool, _ Token) bool
}

// Chain is the interceptors of a handler or a client when all of them are
// Interceptors; nil when one is not (or there are none).
type Chain []Interceptor

// NewChain returns the Chain of interceptors (each an Interceptor or not).
func NewChain[I any](interceptors []I) Chain {
	if len(interceptors) == 0 {
		return nil
	}
	c := make(Chain, 0, len(interceptors))
	for _, i := range interceptors {
		ii, ok := any(i).(Interceptor)
		if !ok {
			return nil
		}
		c = append(c, ii)
	}
	return c
}

// Idle reports whether every interceptor of c would only pass on the call
// made or served with ctx; false for a nil Chain.
func (c Chain) Idle(ctx context.Context, client bool) bool {
	if c == nil {
		return false
	}
	for _, i := range c {
		if !i.Idle(ctx, client, Token{}) {
			return false
		}
	}
	return true
}
