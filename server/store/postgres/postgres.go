// Package postgres is a durable store.Store in a PostgreSQL database, shared
// by many replicas of one agent: any replica may serve any request for any
// task, subscribers on one replica receive the events written by every
// replica, and the push outbox is worked by all of them.
//
// # Writes
//
// A task write is one SQL statement: data-modifying CTEs update the task if
// the version it was computed from is still current (and it is not
// terminal), append its events to task_events, queue its push deliveries
// (only for a task that has push configs) and NOTIFY the replicas, all in
// one atomic statement. Only a write that matched no row costs a second
// query, which says why (not found, terminal, conflict). Writes are queued
// to writer goroutines that send all the writes waiting at that moment as
// one pipelined batch, committed together (group commit): one round trip
// and one commit for many concurrent writes. A write that fails on its own
// terms (a version conflict, say) is not an error of the batch and does not
// disturb the others; a database error fails every write of the batch. The
// statements of a batch take their row locks in key order, so batches of
// several writers and replicas never deadlock each other.
//
// PostgreSQL's durable defaults are kept: a write is acknowledged after its
// commit is flushed (synchronous_commit is never turned off).
//
// # The feed across replicas
//
// Every replica holds one connection that LISTENs on a channel (default
// a2a_events). A notification carries only the tenant, task id and version
// of a write; the events themselves are read from task_events. Each local
// subscriber remembers the last version it has received; on a notification
// for its task it reads the events after that version, in (version, index)
// order, so it receives each event exactly once and in order, whichever
// replica wrote it. A lost notification or a dropped listener connection
// loses nothing: the listener reconnects with backoff and then every local
// subscriber catches up from its last version. The writes of this process
// reach its subscribers directly, without a read.
//
// # Signals
//
// The store is shared (store.Processes): a cancel or a follow-up that reaches a
// replica other than the one running the task is written as usual and then
// signalled to the running replica with a NOTIFY on the same channel, read
// by the same listening connection (signals.go). Signals are best effort
// (one sent while the listener reconnects is lost); the server reconciles
// its running executions with the stored tasks on its lease-renewal ticker.
//
// # Outbox
//
// Deliveries are queued per webhook config (outbox_queues, outbox); only a
// queue's head can be claimed, with FOR UPDATE SKIP LOCKED and a lease, so
// each delivery goes to one replica at a time and a config receives its
// events in order, retries included. DeliveriesQueued is signalled for
// deliveries queued by any replica.
//
// # Retention
//
// Retention.TerminalTaskTTL and Retention.MaxTerminalTasks bound the terminal tasks
// kept. Reads treat a task past its TTL as gone at once; a sweep once a
// second, run by one replica at a time (an advisory lock), removes expired
// tasks and the terminal tasks beyond the maximum (the oldest of the owner
// holding the most), with their push configs and events, through an index
// on the end time.
//
// # Schema
//
// The schema is created and upgraded at Open by the migrations in
// migrations/ (internal/migrate, under an advisory lock, so replicas
// starting together migrate once); a database written by a newer binary is
// refused. WithSchema puts the tables in a schema of their own.
package postgres

import (
	"cmp"
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/migrate"
	"github.com/a2agen/a2agen/internal/redact"
	"github.com/a2agen/a2agen/server/store"
	"github.com/a2agen/a2agen/server/store/internal/sqlrecord"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// DefaultChannel is the NOTIFY channel replicas announce their writes on.
const DefaultChannel = "a2a_events"

// Option configures Open.
type Option func(*options)

type options struct {
	schema         string
	ttl            time.Duration
	maxTerminal    int
	interruptedTTL time.Duration
	owners         sqlrecord.OwnerCaps // the per-owner caps (owners.go)
	buffer         int
	logger         *slog.Logger
	channel        string
	poolSize       int32
	tracer         pgx.QueryTracer
	now            func() time.Time
	writers        int // writer goroutines of the writes that do not notify
	notifyWriters  int // and of those that may
	maxBatch       int
	connConfig     func(*pgx.ConnConfig) // tests
	noSweepLoop    bool                  // tests: sweeps only when the test calls one
	err            error
}

// WithSchema keeps the store's tables in the named schema, created if it
// does not exist (the default is the first schema of the connection's
// search_path, usually public). Several agents can share one database, each
// in its own schema; replicas of one agent use the same.
func WithSchema(name string) Option {
	return func(o *options) {
		if name == "" || strings.ContainsRune(name, 0) {
			o.err = fmt.Errorf("schema name %q is not valid", name)
			return
		}
		o.schema = name
	}
}

// WithRetention sets which tasks the store keeps (store.Retention). Reads
// treat a task past a TTL as gone at once; the sweep removes it within
// about a second. The per-owner bounds hold once the write that goes over
// them returns (owners.go).
func WithRetention(r store.Retention) Option {
	return func(o *options) {
		o.ttl, o.maxTerminal, o.interruptedTTL = max(r.TerminalTaskTTL, 0), max(r.MaxTerminalTasks, 0), max(r.InterruptedTaskTTL, 0)
		o.owners = sqlrecord.OwnerCapsOf(r)
	}
}

// WithSubscriberBuffer sets how many unread events a subscription may hold
// before it is dropped with store.ErrSlowSubscriber; n < 1 keeps
// store.DefaultSubscriberBuffer.
func WithSubscriberBuffer(n int) Option {
	return func(o *options) { o.buffer = n }
}

// WithLogger sets where the store reports problems it handles itself (a
// lost listener connection, a failed retention sweep); the default is
// slog.Default().
func WithLogger(l *slog.Logger) Option {
	return func(o *options) { o.logger = cmp.Or(l, o.logger) }
}

// WithChannel sets the NOTIFY channel the replicas announce their writes on
// (default DefaultChannel). All replicas of an agent must use the same one;
// agents sharing a database may use one each so that they do not hear each
// other's writes (hearing them is harmless, only wasted work).
func WithChannel(name string) Option {
	return func(o *options) {
		if name == "" || len(name) > 63 || strings.ContainsRune(name, 0) {
			o.err = fmt.Errorf("notification channel %q is not valid (1 to 63 bytes)", name)
			return
		}
		o.channel = name
	}
}

// WithPoolSize sets the most connections the store's pool opens (default:
// pool_max_conns from the connection string, else pgx's default, the
// greater of 4 and the number of CPUs; at least 7: five for the writers —
// two for the writes that notify, three for the others — and two for
// reads). The listener holds one more connection of its own.
func WithPoolSize(n int) Option {
	return func(o *options) {
		if n > 0 {
			o.poolSize = int32(min(n, 1<<20))
		}
	}
}

// WithTracer traces every query of the pool's connections (pgx calls the
// tracer's other methods too when it implements pgx.BatchTracer,
// pgx.PrepareTracer, …). The listener's connection is not traced.
func WithTracer(t pgx.QueryTracer) Option {
	return func(o *options) { o.tracer = t }
}

// WithClock sets the clock of retention and of the outbox's enqueue times
// (tests).
func WithClock(now func() time.Time) Option {
	return func(o *options) {
		if now != nil {
			o.now = now
		}
	}
}

// withWriters sets the number of writer goroutines of each kind (see
// writer) and the most writes one batch holds (benchmarks compare group
// commit with one transaction per write).
func withWriters(n, maxBatch int) Option {
	return func(o *options) { o.writers, o.notifyWriters, o.maxBatch = max(n, 1), max(n, 1), max(maxBatch, 1) }
}

// Stats are counters of the store since Open.
type Stats struct {
	// Batches is the number of write batches committed (one transaction and
	// one round trip each).
	Batches int64
	// Writes is the number of task writes committed (several share a batch).
	Writes int64
	// RolledBack is the number of write batches that failed with a
	// database error.
	RolledBack int64
	// Isolated is the number of rolled back batches sent again without the
	// one write the database refused (that write failed alone).
	Isolated int64
	// CatchUps is the number of reads of the feed (a subscriber catching up
	// with writes of other replicas, or after a reconnection).
	CatchUps int64
	// Reconnects is the number of times the listener connected after losing
	// its connection.
	Reconnects int64
	// Retries is the number of task writes tried again because the task's
	// push configs changed while they were written.
	Retries int64
}

// Store is the PostgreSQL store.Store. It is safe for concurrent use.
type Store struct {
	name   string            // the connection string, passwords redacted
	names  sqlrecord.Names   // in errors
	cut    sqlrecord.Cutoffs // retention as reads see it
	opts   options
	pool   *pgxpool.Pool
	origin string // tells this store's notifications from other replicas'

	// The task writes (sql.go), with the guard of Retention.InterruptedTaskTTL.
	sqlUpdateTask, sqlUpdateTaskLean string

	ctx    context.Context // canceled by Close
	cancel context.CancelFunc
	closed atomic.Bool
	bg     sync.WaitGroup // background goroutines

	w    *writer
	feed *feed
	sigs *signals
	lis  *listener
	wake chan struct{}

	closeOnce sync.Once

	// configured holds the tasks (topicKey) that this store saw having
	// push configs, so that their writes go straight to the statement that
	// queues deliveries; the others first try the lean one
	// (sqlUpdateTaskLean). Entries go when the task ends.
	configured sync.Map

	batches, writes, rolledBack, isolated, catchUps, reconnects, retries atomic.Int64
	sendKeyClaims                                                        atomic.Int64 // sendkeys.go
}

var _ store.Store = (*Store)(nil)

// Open connects to the database named by connString (a postgres:// URL or
// keyword/value string as pgx accepts it, with pgxpool's pool_* parameters),
// brings its schema up to date and starts listening for the writes of other
// replicas. A database that cannot be reached is an error naming it (with
// its password redacted).
func Open(ctx context.Context, connString string, opts ...Option) (*Store, error) {
	o := options{logger: slog.Default(), channel: DefaultChannel, now: time.Now, notifyWriters: 2, writers: 3, maxBatch: 64}
	for _, opt := range opts {
		opt(&o)
	}
	name := Describe(connString)
	fail := func(err error) error { return fmt.Errorf("postgres store %s: %w", name, err) }
	if o.err != nil {
		return nil, fail(o.err)
	}
	cfg, listenCfg, err := poolConfig(connString, o)
	if err != nil {
		return nil, fail(err)
	}
	pool, err := connect(ctx, cfg, listenCfg, o.schema)
	if err != nil {
		return nil, fail(err)
	}
	s := &Store{name: name, names: sqlrecord.Names("postgres store " + name), cut: sqlrecord.Cutoffs{TTL: o.ttl, InterruptedTTL: o.interruptedTTL, Now: o.now}, opts: o, pool: pool, origin: randomHex(4), wake: make(chan struct{}, 1)}
	s.sqlUpdateTask, s.sqlUpdateTaskLean = updateSQL(o.interruptedTTL)
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.feed = newFeed(s, o.buffer)
	s.sigs = newSignals(s)
	s.lis = &listener{s: s, cfg: listenCfg}
	if err := s.lis.start(ctx); err != nil {
		s.cancel()
		pool.Close()
		return nil, fail(fmt.Errorf("listening on channel %s: %w", o.channel, err))
	}
	s.w = newWriter(s, o.notifyWriters, o.writers, o.maxBatch)
	if o.sweeps() {
		s.bg.Add(1)
		go s.sweepLoop()
	}
	return s, nil
}

// poolConfig is the pool's configuration for connString and o, and the
// configuration of the listener's connection (without the tracer and the
// tests' changes).
func poolConfig(connString string, o options) (*pgxpool.Config, *pgx.ConnConfig, error) {
	cfg, err := pgxpool.ParseConfig(connString)
	if err != nil {
		return nil, nil, parseErr(err)
	}
	if o.poolSize > 0 {
		cfg.MaxConns = o.poolSize
	}
	// The writers each need a connection, and reads must not wait for them.
	cfg.MaxConns = max(cfg.MaxConns, int32(o.writers+o.notifyWriters)+2)
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = 10 * time.Second
	}
	if o.schema != "" {
		cfg.ConnConfig.RuntimeParams["search_path"] = pgx.Identifier{o.schema}.Sanitize()
	}
	listenCfg := cfg.ConnConfig.Copy()
	cfg.ConnConfig.Tracer = o.tracer
	if o.connConfig != nil {
		o.connConfig(cfg.ConnConfig)
	}
	return cfg, listenCfg, nil
}

// connect opens the pool, checks that the database answers, and creates
// the schema (when one is named) and brings the tables up to date.
func connect(ctx context.Context, cfg *pgxpool.Config, listenCfg *pgx.ConnConfig, schema string) (*pgxpool.Pool, error) {
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("cannot connect: %w", oneLine(err))
	}
	if schema != "" {
		if err := createSchema(ctx, pool, schema); err != nil {
			pool.Close()
			return nil, fmt.Errorf("creating schema %s: %w", schema, err)
		}
	}
	if err := migrateUp(ctx, listenCfg); err != nil {
		pool.Close()
		return nil, err
	}
	return pool, nil
}

// updateSQL are the statements of UpdateTask (full and lean); with an
// interrupted-task TTL, an interrupted task past it cannot be resumed ($11
// is now).
func updateSQL(interruptedTTL time.Duration) (full, lean string) {
	if interruptedTTL <= 0 {
		return sqlUpdateTask, sqlUpdateTaskLean
	}
	guard := fmt.Sprintf("AND t.ended_at IS NULL AND NOT (t.state IN (6, 8) AND t.status_time < $11::bigint - %d)", int64(interruptedTTL))
	return strings.Replace(sqlUpdateTask, "AND t.ended_at IS NULL", guard, 1),
		strings.Replace(sqlUpdateTaskLean, "AND t.ended_at IS NULL", guard, 1)
}

// sweeps reports whether the store runs its retention sweep loop: when it
// has something to remove and a test did not turn the loop off.
func (o options) sweeps() bool {
	return (o.ttl > 0 || o.maxTerminal > 0 || o.interruptedTTL > 0 || o.owners.On()) && !o.noSweepLoop
}

// parseErr drops pgx's repetition of the (redacted) connection string from
// a parse error; the store's message names it already.
func parseErr(err error) error {
	var pe *pgconn.ParseConfigError
	if !errors.As(err, &pe) {
		return err
	}
	msg := pe.Error()
	if i := strings.Index(msg, "`: "); strings.HasPrefix(msg, "cannot parse `") && i >= 0 {
		return &redact.Edited{Msg: "cannot parse the connection string: " + msg[i+3:], Err: err}
	}
	return err
}

// oneLine is err with its message on one line: pgx reports every address
// it tried on a line of its own.
func oneLine(err error) error {
	msg := err.Error()
	if !strings.Contains(msg, "\n") {
		return err
	}
	var parts []string
	for _, l := range strings.Split(msg, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || len(parts) > 0 && strings.HasSuffix(parts[len(parts)-1], l) {
			continue
		}
		parts = append(parts, l)
	}
	if len(parts) > 1 && strings.HasSuffix(parts[0], ":") {
		parts[0] += " " + parts[1]
		parts = append(parts[:1], parts[2:]...)
	}
	return &redact.Edited{Msg: strings.Join(parts, "; "), Err: err}
}

// createSchema creates the schema unless it exists, under an advisory lock
// (concurrent CREATE SCHEMA IF NOT EXISTS of replicas starting together can
// fail otherwise).
func createSchema(ctx context.Context, pool *pgxpool.Pool, schema string) error {
	var exists bool
	if err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, schema).Scan(&exists); err != nil {
		return err
	}
	if exists {
		return nil
	}
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('a2agen/schema/' || $1, 0))`, schema); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS `+pgx.Identifier{schema}.Sanitize())
		return err
	})
}

// migrateUp applies the embedded migrations on a connection of its own,
// under an advisory lock per schema.
func migrateUp(ctx context.Context, cfg *pgx.ConnConfig) error {
	migrations, err := migrate.Load(migrationFiles, "migrations")
	if err != nil {
		return err
	}
	db := stdlib.OpenDB(*cfg)
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("cannot connect: %w", oneLine(err))
	}
	defer conn.Close()
	_, err = migrate.Up(ctx, conn, migrations, migrate.Dialect{
		Begin: "BEGIN",
		Lock:  `SELECT pg_advisory_xact_lock(hashtextextended('a2agen/migrate/' || current_schema(), 0))`,
	})
	return err
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Name returns the connection string the store was opened with, passwords
// redacted.
func (s *Store) Name() string { return s.name }

// Stats returns the store's counters.
func (s *Store) Stats() Stats {
	return Stats{Batches: s.batches.Load(), Writes: s.writes.Load(), RolledBack: s.rolledBack.Load(), Isolated: s.isolated.Load(),
		CatchUps: s.catchUps.Load(), Reconnects: s.reconnects.Load(), Retries: s.retries.Load()}
}

// Close implements store.Store: it stops the writers (writes still queued
// fail with store.ErrClosed; a batch in flight completes), ends every
// subscription with store.ErrClosed, stops listening, closes the channels
// of ReceiveSignals and closes the pool.
// Later calls fail with store.ErrClosed.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.closed.Store(true)
		s.w.stop()
		s.feed.close()
		s.cancel()
		s.lis.stop()
		s.sigs.close()
		s.feed.wait()
		s.bg.Wait()
		s.pool.Close()
	})
	return nil
}

func (s *Store) checkOpen() error {
	if s.closed.Load() {
		return store.ErrClosed
	}
	return nil
}

// dbErr turns a failed database call into the error the store reports
// (sqlrecord.Names.Err).
func (s *Store) dbErr(what string, err error) error { return s.names.Err(s.closed.Load(), what, err) }

// now is the store's clock in unix nanoseconds.
func (s *Store) now() int64 { return s.cut.NowNanos() }

// liveSince and waitingSince are the retention cutoffs now
// (sqlrecord.Cutoffs).
func (s *Store) liveSince() int64 { return s.cut.LiveSince(s.now()) }

func (s *Store) waitingSince() int64 { return s.cut.WaitingSince(s.now()) }

// waitedOut and expired are sqlrecord.Cutoffs' for this store's columns,
// now.
func (s *Store) waitedOut(state int16, statusTime int64) bool {
	return s.cut.WaitedOut(a2av1.TaskState(state), statusTime, s.now())
}

func (s *Store) expired(endedAt *int64) bool {
	return endedAt != nil && s.cut.Expired(*endedAt, true, s.now())
}

// timeOf is the time of a nullable column (NULL: zero time).
func timeOf(v *int64) time.Time {
	if v == nil {
		return time.Time{}
	}
	return time.Unix(0, *v)
}

// leaseArg is a lease end as a column value (NULL for none).
func leaseArg(t time.Time) *int64 {
	if n, ok := sqlrecord.Lease(t); ok {
		return &n
	}
	return nil
}

// Describe returns connString as it may appear in logs and error messages:
// the password of a URL's user info and the values of password parameters
// replaced by "xxxxx".
func Describe(connString string) string {
	lower := strings.ToLower(connString)
	if strings.HasPrefix(lower, "postgres://") || strings.HasPrefix(lower, "postgresql://") {
		return redact.QueryPasswords(redact.Userinfo(connString))
	}
	return kvPassword.ReplaceAllString(connString, "${1}"+redact.Mask)
}

var kvPassword = regexp.MustCompile(`(?i)(\b\w*password\s*=\s*)('(?:[^'\\]|\\.)*'|\S*)`)

// withConnConfig lets tests change the pool's connection settings (a
// dialer that counts writes, say).
func withConnConfig(f func(*pgx.ConnConfig)) Option {
	return func(o *options) { o.connConfig = f }
}
