package host

import (
	"net/http"
	goruntime "runtime"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/keepalive"

	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
)

// Limits bound what one caller, one connection or one stream can hold of
// the agent. Every field has a default (DefaultLimits; a zero field takes
// its default, a negative one turns the bound off where that is allowed);
// docs/limits.md lists them with the limits fixed in the runtime
// (runtime.MaxJSONDepth, runtime.MaxExtensionsHeaderBytes, …) and the error
// each one answers with.
type Limits struct {
	// MaxBodyBytes bounds a JSON-RPC or HTTP+JSON request body
	// (runtime.WithMaxBodyBytes) and a gRPC request message
	// (grpc.MaxRecvMsgSize).
	MaxBodyBytes int64
	// MaxHeaderBytes bounds the request header block on HTTP
	// (http.Server.MaxHeaderBytes; over it: 431) and the header list on gRPC
	// (grpc.MaxHeaderListSize). It must leave room for
	// runtime.MaxExtensionsHeaderBytes and a credential.
	MaxHeaderBytes int
	// ReadHeaderTimeout bounds reading a request's header; ReadTimeout the
	// whole request, body included, so a client sending its body slowly is
	// cut off (streams go on: the bound ends when the request is read).
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	// WriteTimeout bounds each write of an answer on HTTP: a unary response,
	// or one event of a stream (runtime.WithWriteTimeout). A client that
	// never reads loses its call after it, and what the call held is
	// released. It is counted from the write, not from the request, so a
	// blocking SendMessage may take as long as its task and a stream may
	// stay quiet as long as its task waits; http.Server.WriteTimeout, which
	// would bound the whole exchange, stays unset.
	WriteTimeout time.Duration
	// IdleTimeout closes an HTTP keep-alive connection with no request, and
	// a gRPC connection with no call (keepalive MaxConnectionIdle), after
	// this long.
	IdleTimeout time.Duration
	// StreamKeepAlive is the quiet time after which an SSE stream gets a
	// keep-alive comment (runtime.WithStreamKeepAlive) and a gRPC connection
	// a keepalive ping (keepalive Time), so long waits survive idle timeouts
	// of proxies; gRPC connections that do not answer a ping within it are
	// closed.
	StreamKeepAlive time.Duration
	// MaxConcurrentStreams bounds the calls in progress on one HTTP/2 or
	// gRPC connection (grpc.MaxConcurrentStreams); more wait for a slot.
	MaxConcurrentStreams uint32
	// TerminalTaskTTL is how long a finished task (completed, failed,
	// canceled, rejected) stays readable, and MaxTerminalTasks how many
	// finished tasks are kept, the oldest removed first. Like the other
	// retention bounds below, they apply to the store Main opens (-store);
	// a program that passes its own Config.Store sets them there.
	// Negative: no bound.
	TerminalTaskTTL  time.Duration
	MaxTerminalTasks int
	// InterruptedTaskTTL is how long a task waiting for its client
	// (INPUT_REQUIRED, AUTH_REQUIRED) is kept, counted from its status
	// timestamp; then it is removed like a finished task past its TTL (a
	// follow-up message gets TaskNotFound). It applies to the store Main
	// opens (-store); a program that passes its own Config.Store sets it
	// there (store.Retention, which each store takes through its
	// WithRetention). Negative: kept until the store ends.
	InterruptedTaskTTL time.Duration
	// IdempotencyWindow is how long the idempotency key of a message send
	// (its Idempotency-Key, else its messageId) is kept
	// (server.WithIdempotencyWindow): a send retried with the key by the
	// same caller within the window answers with the first send's task.
	// Negative: sends are not deduplicated.
	IdempotencyWindow time.Duration
	// MaxStreams and MaxStreamsPerCaller bound the streams
	// (SendStreamingMessage, SubscribeToTask) the agent holds at once, in
	// all and per caller (server.WithMaxStreams, WithMaxStreamsPerCaller;
	// over them: ResourceExhausted, HTTP 429).
	MaxStreams, MaxStreamsPerCaller int
	// MaxAnonymousStreams bounds the streams callers without an identity
	// hold together (server.WithMaxAnonymousStreams), so that the rest of
	// MaxStreams stays for identified callers.
	MaxAnonymousStreams int
	// MaxListingsPerOwner bounds the ListTasks calls of one owner
	// (anonymous callers together are one) served at once, encoding of the
	// answer included (server.WithMaxListingsPerOwner); more wait their
	// turn. Negative: no bound.
	MaxListingsPerOwner int
	// MaxFollowUpsPerTask bounds the follow-up messages a running task
	// holds that its agent has not taken (server.WithMaxFollowUpsPerTask);
	// MaxHistoryPerTask the messages of a task's history
	// (server.WithMaxHistoryPerTask). Negative: no bound.
	MaxFollowUpsPerTask, MaxHistoryPerTask int
	// MaxSubscriberBytes bounds the bytes of events (their proto.Size) a
	// stream's subscription holds queued that its client has not read
	// (server.WithMaxSubscriberBytes); over it the stream is dropped with
	// an error event naming MaxSubscriberBytes. Negative: only the event
	// count (store.DefaultSubscriberBuffer) bounds it.
	MaxSubscriberBytes int64
	// MaxPartsPerMessage bounds the parts of a client message, and
	// MaxMessageBytes its protobuf size (server.WithMaxPartsPerMessage,
	// WithMaxMessageBytes); MaxTaskBytes bounds the protobuf size of a
	// task's history and artifacts that client messages may take it to
	// (server.WithMaxTaskBytes). Over them: InvalidParams naming the limit.
	// Negative: no bound.
	MaxPartsPerMessage            int
	MaxMessageBytes, MaxTaskBytes int64
	// MaxTerminalTasksPerOwner bounds the finished tasks kept of one
	// owner, and MaxInterruptedTasksPerOwner its tasks waiting for input
	// (INPUT_REQUIRED, AUTH_REQUIRED); anonymous callers together are one
	// owner. One more removes the owner's oldest (a read of it answers
	// TaskNotFound). They apply to the store Main opens (-store: memory,
	// SQLite or PostgreSQL alike; store.Retention's fields of the same
	// names). Negative: no bound.
	MaxTerminalTasksPerOwner, MaxInterruptedTasksPerOwner int
	// MaxBytesPerOwner bounds the bytes (protobuf size) of one owner's
	// finished and interrupted tasks together: over it, the owner's oldest
	// finished task goes, then the one it left waiting longest ago (every
	// store, like the two above: store.Retention.MaxBytesPerOwner).
	// Negative: no bound.
	MaxBytesPerOwner int64
}

// DefaultMaxTerminalTasksPerOwner and DefaultMaxInterruptedTasksPerOwner
// are the defaults of Limits.MaxTerminalTasksPerOwner and
// MaxInterruptedTasksPerOwner. One owner may fill the whole
// DefaultMaxTerminalTasks when no one else needs room: over that global
// cap, the owner holding the most loses its oldest, so the per-owner cap
// of finished tasks matters only where an operator lowers it. A thousand
// tasks waiting for their client is far more than one person keeps open,
// and bounds what anonymous callers together leave waiting for a day.
//
// DefaultMaxBytesPerOwner bounds what one owner (all anonymous callers
// together) keeps of finished and waiting tasks: 32 MiB of messages and
// artifacts hold about 40 MiB of heap in the memory store, so anonymous
// callers cannot take a process beyond a couple of hundred MiB however
// many messages within MaxMessageBytes they send (before, 20 echoed 3.9 MB
// messages held 190 MiB, and nothing stopped more; with 64 MiB, 100 such
// messages peaked at 291 MiB).
const (
	DefaultMaxTerminalTasksPerOwner    = DefaultMaxTerminalTasks
	DefaultMaxInterruptedTasksPerOwner = 1000
	DefaultMaxBytesPerOwner            = 32 << 20
)

// DefaultTerminalTaskTTL and DefaultMaxTerminalTasks are the defaults of
// Limits.TerminalTaskTTL and MaxTerminalTasks: a day of finished tasks, at
// most ten thousand of them.
const (
	DefaultTerminalTaskTTL  = 24 * time.Hour
	DefaultMaxTerminalTasks = 10_000
)

// DefaultInterruptedTaskTTL is the default of Limits.InterruptedTaskTTL:
// as long as a finished task is kept (DefaultTerminalTaskTTL), so that a
// person asked for input can answer the next day, while tasks nobody ever
// answers (abandoned, or created in bulk by an anonymous caller) do not
// pile up for ever.
const DefaultInterruptedTaskTTL = 24 * time.Hour

// DefaultLimits are the limits of an agent whose Config sets none.
func DefaultLimits() Limits {
	return Limits{
		MaxBodyBytes:         runtime.DefaultMaxBodyBytes,
		MaxHeaderBytes:       64 << 10,
		ReadHeaderTimeout:    10 * time.Second,
		ReadTimeout:          60 * time.Second,
		WriteTimeout:         runtime.DefaultWriteTimeout,
		IdleTimeout:          120 * time.Second,
		StreamKeepAlive:      runtime.DefaultStreamKeepAlive,
		MaxConcurrentStreams: 100,
		TerminalTaskTTL:      DefaultTerminalTaskTTL,
		MaxTerminalTasks:     DefaultMaxTerminalTasks,
		InterruptedTaskTTL:   DefaultInterruptedTaskTTL,
		IdempotencyWindow:    server.DefaultIdempotencyWindow,
		MaxStreams:           server.DefaultMaxStreams,
		MaxStreamsPerCaller:  server.DefaultMaxStreamsPerCaller,
		MaxFollowUpsPerTask:  server.DefaultMaxFollowUpsPerTask,
		MaxHistoryPerTask:    server.DefaultMaxHistoryPerTask,
		MaxSubscriberBytes:   server.DefaultMaxSubscriberBytes,
		MaxAnonymousStreams:  server.DefaultMaxAnonymousStreams,
		MaxListingsPerOwner:  server.DefaultMaxListingsPerOwner,
		MaxPartsPerMessage:   server.DefaultMaxPartsPerMessage,
		MaxMessageBytes:      server.DefaultMaxMessageBytes,
		MaxTaskBytes:         server.DefaultMaxTaskBytes,

		MaxTerminalTasksPerOwner:    DefaultMaxTerminalTasksPerOwner,
		MaxInterruptedTasksPerOwner: DefaultMaxInterruptedTasksPerOwner,
		MaxBytesPerOwner:            DefaultMaxBytesPerOwner,
	}
}

// ServerOptions are the server.New options that carry l (the caps on
// streams, follow-ups and history).
func (l Limits) ServerOptions() []server.Option {
	l = l.withDefaults()
	return []server.Option{
		server.WithMaxStreams(l.MaxStreams),
		server.WithMaxStreamsPerCaller(l.MaxStreamsPerCaller),
		server.WithMaxFollowUpsPerTask(l.MaxFollowUpsPerTask),
		server.WithMaxHistoryPerTask(l.MaxHistoryPerTask),
		server.WithMaxSubscriberBytes(l.MaxSubscriberBytes),
		server.WithMaxAnonymousStreams(l.MaxAnonymousStreams),
		server.WithMaxListingsPerOwner(l.MaxListingsPerOwner),
		server.WithMaxPartsPerMessage(l.MaxPartsPerMessage),
		server.WithMaxMessageBytes(l.MaxMessageBytes),
		server.WithMaxTaskBytes(l.MaxTaskBytes),
		server.WithIdempotencyWindow(off(l.IdempotencyWindow)),
	}
}

// withDefaults fills the zero fields of l from DefaultLimits.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	fill := func(v *time.Duration, def time.Duration) {
		if *v == 0 {
			*v = def
		}
	}
	if l.MaxBodyBytes <= 0 {
		l.MaxBodyBytes = d.MaxBodyBytes
	}
	if l.MaxHeaderBytes <= 0 {
		l.MaxHeaderBytes = d.MaxHeaderBytes
	}
	for _, f := range []struct {
		v   *int
		def int
	}{
		{&l.MaxStreams, d.MaxStreams}, {&l.MaxStreamsPerCaller, d.MaxStreamsPerCaller},
		{&l.MaxFollowUpsPerTask, d.MaxFollowUpsPerTask}, {&l.MaxHistoryPerTask, d.MaxHistoryPerTask},
		{&l.MaxAnonymousStreams, d.MaxAnonymousStreams}, {&l.MaxPartsPerMessage, d.MaxPartsPerMessage},
		{&l.MaxTerminalTasksPerOwner, d.MaxTerminalTasksPerOwner}, {&l.MaxInterruptedTasksPerOwner, d.MaxInterruptedTasksPerOwner},
		{&l.MaxTerminalTasks, d.MaxTerminalTasks}, {&l.MaxListingsPerOwner, d.MaxListingsPerOwner},
	} {
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	for _, f := range []struct {
		v   *int64
		def int64
	}{
		{&l.MaxSubscriberBytes, d.MaxSubscriberBytes}, {&l.MaxMessageBytes, d.MaxMessageBytes}, {&l.MaxTaskBytes, d.MaxTaskBytes},
		{&l.MaxBytesPerOwner, d.MaxBytesPerOwner},
	} {
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	if l.MaxConcurrentStreams == 0 {
		l.MaxConcurrentStreams = d.MaxConcurrentStreams
	}
	fill(&l.ReadHeaderTimeout, d.ReadHeaderTimeout)
	fill(&l.ReadTimeout, d.ReadTimeout)
	fill(&l.WriteTimeout, d.WriteTimeout)
	fill(&l.IdleTimeout, d.IdleTimeout)
	fill(&l.StreamKeepAlive, d.StreamKeepAlive)
	fill(&l.TerminalTaskTTL, d.TerminalTaskTTL)
	fill(&l.InterruptedTaskTTL, d.InterruptedTaskTTL)
	fill(&l.IdempotencyWindow, d.IdempotencyWindow)
	return l
}

// off is 0 for a negative duration (net/http and grpc-go: no bound).
func off(d time.Duration) time.Duration { return max(d, 0) }

// HTTPServer returns an http.Server for handler with l's timeouts and
// header bound (the zero fields at their defaults).
func (l Limits) HTTPServer(handler http.Handler) *http.Server {
	l = l.withDefaults()
	return &http.Server{
		Handler:           handler,
		MaxHeaderBytes:    l.MaxHeaderBytes,
		ReadHeaderTimeout: off(l.ReadHeaderTimeout),
		ReadTimeout:       off(l.ReadTimeout),
		IdleTimeout:       off(l.IdleTimeout),
	}
}

// HandlerOptions are the binding options that carry l (body size, write
// timeout, keep-alive).
func (l Limits) HandlerOptions() []runtime.HandlerOption {
	l = l.withDefaults()
	return []runtime.HandlerOption{
		runtime.WithMaxBodyBytes(l.MaxBodyBytes),
		runtime.WithWriteTimeout(l.WriteTimeout),
		runtime.WithStreamKeepAlive(l.StreamKeepAlive),
	}
}

// GRPCServerOptions are the grpc.NewServer options that carry l, with
// runtime.GRPCServerCodec (the nesting limit while decoding).
func (l Limits) GRPCServerOptions() []grpc.ServerOption {
	l = l.withDefaults()
	opts := []grpc.ServerOption{
		grpc.ForceServerCodecV2(runtime.GRPCServerCodec()),
		grpc.MaxRecvMsgSize(int(min(l.MaxBodyBytes, int64(^uint32(0)>>1)))),
		grpc.MaxHeaderListSize(uint32(l.MaxHeaderBytes)),
		grpc.MaxConcurrentStreams(l.MaxConcurrentStreams),
		// Clients may ping as often as the server does (grpc-go's default
		// minimum of 5 minutes would close the connection of a client
		// that keeps its own long stream alive).
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: min(off(l.StreamKeepAlive), 5*time.Minute), PermitWithoutStream: true}),
		// Calls run on goroutines that live on (one per CPU) instead of a
		// new goroutine per call, whose stack grew twice in every call
		// (8 → 32 KiB, copied frame by frame: 17 % of a unary round
		// trip's instructions). A call that finds every worker busy gets
		// a goroutine of its own, so long calls never hold up others.
		grpc.NumStreamWorkers(uint32(goruntime.GOMAXPROCS(0))),
	}
	if d := off(l.ReadHeaderTimeout); d > 0 {
		opts = append(opts, grpc.ConnectionTimeout(d)) // the HTTP/2 handshake
	}
	if ka := off(l.StreamKeepAlive); ka > 0 {
		opts = append(opts, grpc.KeepaliveParams(keepalive.ServerParameters{
			MaxConnectionIdle: off(l.IdleTimeout),
			Time:              ka,
			Timeout:           ka,
		}))
	} else if idle := off(l.IdleTimeout); idle > 0 {
		opts = append(opts, grpc.KeepaliveParams(keepalive.ServerParameters{MaxConnectionIdle: idle}))
	}
	return opts
}
