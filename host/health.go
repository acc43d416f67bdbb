package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	grpchealth "google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// The health checks every HTTP listener of an agent answers (GET or HEAD,
// without credentials):
//
//   - HealthzPath: 200 "ok" while the process serves (liveness);
//   - ReadyzPath: 200 "ok" when the agent takes calls: its store answers
//     and no shutdown has begun; otherwise 503 with the reason in one line
//     of text, "shutting down" or "store unreachable" (readiness).
//
// gRPC listeners serve grpc.health.v1 with the same readiness, for the
// server ("") and for lf.a2a.v1.A2AService: SERVING or NOT_SERVING.
const (
	HealthzPath = "/healthz"
	ReadyzPath  = "/readyz"
)

// Reasons Agent.Ready gives for not being ready.
var (
	// ErrShuttingDown: a shutdown has begun.
	ErrShuttingDown = errors.New("shutting down")
	// ErrStoreUnreachable: the store did not answer (Store.Ping) within
	// StoreCheckTimeout.
	ErrStoreUnreachable = errors.New("store unreachable")
)

// StoreCheckTimeout bounds the store check of a readiness probe.
const StoreCheckTimeout = time.Second

// healthPollInterval is how often the gRPC health status is brought up to
// date for watchers (Health.Watch); Health.Check always checks at once.
const healthPollInterval = 5 * time.Second

// health is an agent's readiness and the health services built on it.
type health struct {
	store  store.Store
	logger *slog.Logger

	draining atomic.Bool
	notReady atomic.Bool // as last seen, to log changes only

	grpc *grpchealth.Server

	// watches is canceled when the open streams of the agent end: health
	// watches would otherwise keep gRPC's graceful stop waiting.
	watches   context.Context
	endWatch  context.CancelFunc
	stopPoll  chan struct{}
	stopOnce  sync.Once
	pollDone  sync.WaitGroup
	a2aHealth string // the A2A service's name in health checks
}

func newHealth(a *Agent, cfg Config) *health {
	h := &health{store: a.srv.Store(), logger: loggerOf(cfg), grpc: grpchealth.NewServer(),
		stopPoll: make(chan struct{}), a2aHealth: string(a2av1.A2AServiceDesc.Name)}
	h.watches, h.endWatch = context.WithCancel(context.Background())
	return h
}

// Ready reports whether the agent takes calls: nil, ErrShuttingDown once a
// shutdown has begun, or an error wrapping ErrStoreUnreachable (with the
// store's reason) when the store does not answer within
// StoreCheckTimeout. It is what /readyz and gRPC health checks answer.
func (a *Agent) Ready(ctx context.Context) error { return a.health.check(ctx) }

func (h *health) check(ctx context.Context) error {
	if h.draining.Load() {
		return ErrShuttingDown
	}
	ctx, cancel := context.WithTimeout(ctx, StoreCheckTimeout)
	defer cancel()
	err := h.store.Ping(ctx)
	if h.draining.Load() {
		return ErrShuttingDown // the store may be closing
	}
	was := h.notReady.Swap(err != nil)
	switch {
	case err != nil && !was:
		h.logger.LogAttrs(ctx, slog.LevelWarn, "a2a: not ready: the store is unreachable", slog.Any("error", err))
	case err == nil && was:
		h.logger.LogAttrs(ctx, slog.LevelInfo, "a2a: ready: the store answers again")
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrStoreUnreachable, err)
	}
	return nil
}

// register adds the HTTP health checks to mux.
func (h *health) register(mux *http.ServeMux) {
	mux.HandleFunc("GET "+HealthzPath, func(w http.ResponseWriter, _ *http.Request) {
		healthAnswer(w, http.StatusOK, "ok")
	})
	mux.HandleFunc("GET "+ReadyzPath, func(w http.ResponseWriter, r *http.Request) {
		switch err := h.check(r.Context()); {
		case err == nil:
			healthAnswer(w, http.StatusOK, "ok")
		case errors.Is(err, ErrShuttingDown):
			healthAnswer(w, http.StatusServiceUnavailable, ErrShuttingDown.Error())
		default: // the store's error is logged, not shown to anyone who asks
			healthAnswer(w, http.StatusServiceUnavailable, ErrStoreUnreachable.Error())
		}
	})
}

func healthAnswer(w http.ResponseWriter, status int, text string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(text + "\n"))
}

// registerGRPC adds grpc.health.v1 to g.
func (h *health) registerGRPC(g *grpc.Server) {
	healthpb.RegisterHealthServer(g, &healthService{Server: h.grpc, h: h})
}

// start sets the first gRPC health status and, when gRPC is served, keeps
// it up to date for watchers.
func (h *health) start(poll bool) {
	h.refresh(context.Background())
	if !poll {
		return
	}
	h.pollDone.Add(1)
	go func() {
		defer h.pollDone.Done()
		t := time.NewTicker(healthPollInterval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				h.refresh(context.Background())
			case <-h.stopPoll:
				return
			}
		}
	}()
}

// refresh sets the gRPC health status from a readiness check.
func (h *health) refresh(ctx context.Context) {
	st := healthpb.HealthCheckResponse_SERVING
	if h.check(ctx) != nil {
		st = healthpb.HealthCheckResponse_NOT_SERVING
	}
	h.grpc.SetServingStatus("", st)
	h.grpc.SetServingStatus(h.a2aHealth, st)
}

// drain turns the agent not ready for good (gRPC: NOT_SERVING, which
// watchers are told at once).
func (h *health) drain() {
	h.draining.Store(true)
	h.grpc.Shutdown()
	h.stop()
}

// endWatches ends the open health watches.
func (h *health) endWatches() { h.endWatch() }

// stop ends the polling.
func (h *health) stop() {
	h.stopOnce.Do(func() { close(h.stopPoll) })
	h.pollDone.Wait()
}

// healthService is grpc-go's health service whose Check looks at the
// agent's readiness first and whose watches end with the agent's streams.
type healthService struct {
	*grpchealth.Server
	h *health
}

func (s *healthService) Check(ctx context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	s.h.refresh(ctx)
	return s.Server.Check(ctx, req)
}

func (s *healthService) Watch(req *healthpb.HealthCheckRequest, stream healthpb.Health_WatchServer) error {
	ctx, cancel := context.WithCancel(stream.Context())
	defer cancel()
	defer context.AfterFunc(s.h.watches, cancel)()
	return s.Server.Watch(req, watchStream{stream, ctx})
}

// watchStream is a health watch with its own context.
type watchStream struct {
	healthpb.Health_WatchServer
	ctx context.Context
}

func (w watchStream) Context() context.Context { return w.ctx }
