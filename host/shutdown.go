package host

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"google.golang.org/grpc"
)

// DefaultShutdownGrace is how long running executions may go on after a
// shutdown began unless Config.ShutdownGrace (Main: -shutdown-grace)
// says otherwise.
const DefaultShutdownGrace = 10 * time.Second

// ShutdownCancelTimeout is how long executions have to return once their
// contexts were canceled at the end of the grace period.
const ShutdownCancelTimeout = 5 * time.Second

// shutdownCloseTimeout is how long the open calls have, once told to end
// (streams with the task's latest state), before their connections are
// closed; and how long deliveries of push notifications in flight have.
const shutdownCloseTimeout = 2 * time.Second

// Wait serves until ctx is done or a listener fails, then shuts the agent
// down (Shutdown).
func (a *Agent) Wait(ctx context.Context) error {
	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-a.errs:
	}
	return errors.Join(serveErr, a.Shutdown(context.Background()))
}

// Shutdown shuts the agent down gracefully:
//
//  1. the agent turns not ready (/readyz answers 503, gRPC health checks
//     NOT_SERVING) and, after Config.ShutdownDelay, stops accepting calls:
//     its listeners close, the connections already open take no new calls
//     (HTTP/2 and gRPC ones get GOAWAY, idle HTTP/1.1 ones are closed), and
//     messages that would start a task are refused; calls in progress go
//     on;
//  2. running executions have Config.ShutdownGrace to finish;
//  3. those still running then have their contexts canceled with the cause
//     server.ErrShutdown and ShutdownCancelTimeout to return (their tasks
//     end FAILED unless the executor records another state);
//  4. every stream still open ends with its task's latest state, or with
//     an error event saying that the agent is shutting down when that state
//     does not end the stream (a task waiting in AUTH_REQUIRED, or running
//     on another replica); a blocking SendMessage returns the task as it
//     is; the calls have a moment to finish before their connections close;
//  5. webhook deliveries in flight finish (those not made stay in the
//     store's outbox).
//
// It returns nil when everything finished by itself in time, and otherwise
// says what had to be canceled or cut. ctx bounds the whole: when it is
// done, whatever still runs is canceled and cut at once. Shutdown may be
// called more than once; later calls return the first one's result.
func (a *Agent) Shutdown(ctx context.Context) error {
	a.shutdownOnce.Do(func() { a.shutdownErr = a.shutdown(ctx) })
	return a.shutdownErr
}

func (a *Agent) shutdown(ctx context.Context) error {
	a.health.drain()
	if a.delay > 0 {
		t := time.NewTimer(a.delay)
		select {
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}

	// Stop accepting calls; the servers finish when the calls have.
	stopCtx, cut := context.WithCancel(context.WithoutCancel(ctx))
	defer cut()
	httpDone := make(chan error, len(a.https))
	for _, hs := range a.https {
		go func() { httpDone <- a.stopHTTP(stopCtx, hs) }()
	}
	grpcDone := make(chan error, len(a.grpcs))
	for _, g := range a.grpcs {
		go func() { grpcDone <- stopGRPC(stopCtx, g) }()
	}

	var errs []error
	graceCtx, cancel := context.WithTimeout(ctx, max(a.grace, 0))
	err := a.srv.Drain(graceCtx)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			errs = append(errs, fmt.Errorf("host: shutdown canceled (%w) with %s still running", context.Cause(ctx), executions(a.srv.Executions())))
		} else {
			errs = append(errs, canceledError(fmt.Sprintf("host: %s still running at the end of the %v shutdown grace period: canceled", executions(a.srv.Executions()), max(a.grace, 0))))
		}
	}
	cancelCtx, cancel := context.WithTimeout(ctx, ShutdownCancelTimeout)
	if n := a.srv.Executions(); a.srv.Shutdown(cancelCtx) != nil {
		errs = append(errs, fmt.Errorf("host: %s did not return within %v of being canceled", executions(n), ShutdownCancelTimeout))
	}
	cancel()
	a.health.endWatches()

	closeCtx, cancel := context.WithTimeout(ctx, shutdownCloseTimeout)
	defer cancel()
	stop := context.AfterFunc(closeCtx, cut)
	defer stop()
	for range a.https {
		errs = append(errs, <-httpDone)
	}
	for range a.grpcs {
		errs = append(errs, <-grpcDone)
	}
	a.closeListeners()
	a.health.stop()
	pushCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownCloseTimeout)
	defer cancel()
	a.closeSender(pushCtx)
	return errors.Join(errs...)
}

// ErrExecutionsCanceled is what Shutdown's error matches (errors.Is) when
// executions were still running at the end of the grace period and had to
// be canceled — but returned when told to.
var ErrExecutionsCanceled = errors.New("host: executions canceled at the end of the shutdown grace period")

// canceledError is the error of executions canceled at the end of the
// grace period.
type canceledError string

func (e canceledError) Error() string        { return string(e) }
func (e canceledError) Is(target error) bool { return target == ErrExecutionsCanceled }

// stopHTTP shuts hs down gracefully until ctx is done, then closes its
// connections.
func (a *Agent) stopHTTP(ctx context.Context, hs *http.Server) error {
	if err := hs.Shutdown(ctx); err != nil {
		_ = hs.Close()
		return fmt.Errorf("host: HTTP calls on %s still open at the end of the shutdown were cut", hs.Addr)
	}
	return nil
}

// stopGRPC stops g gracefully until ctx is done, then cuts its calls.
func stopGRPC(ctx context.Context, g *grpc.Server) error {
	stopped := make(chan struct{})
	go func() {
		g.GracefulStop()
		close(stopped)
	}()
	select {
	case <-stopped:
		return nil
	case <-ctx.Done():
		g.Stop()
		<-stopped
		return errors.New("host: gRPC calls still open at the end of the shutdown were cut")
	}
}

// executions is "1 execution", "2 executions".
func executions(n int) string {
	if n == 1 {
		return "1 execution"
	}
	return fmt.Sprintf("%d executions", n)
}
