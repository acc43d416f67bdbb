// Package sqlite is a durable store.Store in one SQLite file, for a single
// agent process. It is pure Go (modernc.org/sqlite, no cgo).
//
// The live parts of the store are in the process: subscribers receive the
// events of this process's writes, DeliveriesQueued is signalled for them,
// and reads are served from a cache of the records this process wrote.
// Open therefore locks the file for its process (a flock on PATH-lock,
// released by the kernel when the process ends): a second agent on the
// same file is refused with an error naming the holder. Holding the lock,
// the store knows that every execution recorded by another process has
// ended, so a restarted agent settles its predecessor's tasks at once,
// even from a container restarted in a new pid namespace. WithSharedAccess
// opts out: SQLite's locking keeps the file consistent if another process
// opens it too, but that process's writes reach neither this process's
// subscribers, nor its retention count, nor its reads of the tasks it has
// cached (its writes stay correct: each checks the row it replaces). Use a
// shared store for replicas, and do not change the tables by hand while an
// agent runs.
//
// # Durability
//
// The database runs in WAL mode. With the default WithSynchronous("normal")
// a committed write survives a crash or kill -9 of the process; only a
// power loss or kernel crash can lose the last transactions committed
// before it (the database itself stays consistent). WithSynchronous("full")
// also makes every commit wait for the disk, so a power loss loses nothing
// that was acknowledged, at the cost of an fsync per transaction.
// synchronous=OFF is never used.
//
// # Writes
//
// Every write (task, push config, outbox, execution record) goes to one
// writer goroutine that owns the only write connection. It takes the first
// queued write, drains up to 63 more that are already waiting, and commits
// them in one transaction (group commit), so concurrent writers share the
// cost of a commit. A write that fails on its own terms (version conflict,
// unknown task, terminal task, existing id) is detected by reads before it
// writes anything and does not affect the others; a database error (disk
// full, read-only file, I/O error, lock timeout) rolls back the whole
// transaction and every write in it reports that error, and the next
// transaction tries again. Only after COMMIT are the events of the writes
// published to subscribers, in commit order, and the callers answered —
// but a send key's claim, answered as soon as it is applied and written
// again, first, by the next transaction if its own rolls back; the writes
// queued meanwhile join its transaction (early_claims.go).
//
// A write rewrites only what it changes. The tasks table has one listing
// index (by status time, also covering the context, state and TTL filters),
// an index of the tasks that have a runner (without the lease, so renewing
// leases touches no index) and one of the terminal tasks by end time. An
// UPDATE rewrites every index whose columns it assigns, even with the same
// values, so a write that keeps the status (an artifact, a message) uses a
// statement that assigns only the snapshot and changes no index, and a new
// status that keeps the runner leaves the runner index alone. A simple task
// (created, an artifact, completed) costs about 4 pages of WAL at 16
// concurrent tasks. The writer does not checkpoint: a checkpointer
// goroutine with its own connection copies the WAL into the database every
// 1000 pages without blocking writes, and the writer only restarts the WAL
// (between two transactions, without waiting for readers) when it has
// grown past 4000 pages (see checkpoint.go).
//
// # Reads and the record cache
//
// Every write goes through the writer, so the writer keeps a cache of task
// records that is exactly what the database holds: after each COMMIT (and
// before the events are published and the callers answered) it stores the
// records the transaction wrote, applies renewed leases and changed push
// config counts, and forgets the tasks a retention sweep deleted. Task,
// and so Subscribe's snapshot, needs no SQL for a cached task; a cached
// terminal task past its TTL is reported gone like a stored one. Running
// tasks (SUBMITTED, WORKING) written by this process stay cached until they
// stop running; other records — waiting and terminal tasks, and tasks read
// from the database — are kept in a least-recently-used set of at most 4096
// records and 32 MiB of encoded snapshots. A read that misses goes to the
// database and offers what it read to the cache, which takes it only if no
// write changed that part of the cache meanwhile, so a read racing with a
// write never installs the older record. The writer also uses the cached
// row: a write of a cached task needs no RETURNING, and its WHERE clause
// checks every column taken from the cache.
//
// Reads that miss the cache, listings, push configs and the outbox's reads
// use a separate pool of read-only connections that never wait for the
// writer.
//
// # Outbox and retention
//
// The push deliveries of a write are rows of the outbox table inserted by
// the write's own transaction (one per event and webhook config; none,
// and no statement, for a task without webhooks). Each row carries a copy
// of its config, kept current by SavePushConfig, so the final event of a
// task removed right after it ended is still delivered. Only the oldest
// pending row of a config can be claimed, which keeps each webhook's events
// in order.
//
// Retention.TerminalTaskTTL and Retention.MaxTerminalTasks bound the terminal tasks
// kept, like the in-memory store's options of the same name: reads treat a
// task past its TTL as gone at once; the writer removes such tasks within
// about a second, and the terminal tasks beyond the maximum — the oldest of
// the owner holding the most — in the transaction that exceeds it, through
// an index on the end time.
//
// # Layout
//
// Task snapshots, push configs and outbox events are stored as protobuf
// binary; times as unix nanoseconds. The schema is created and upgraded by
// the migrations in migrations/ (see internal/migrate); a database written
// by a newer binary is refused.
package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	sqlitedrv "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/a2agen/a2agen/internal/migrate"
	"github.com/a2agen/a2agen/server/store"
	"github.com/a2agen/a2agen/server/store/internal/sqlrecord"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Option configures Open.
type Option func(*options)

type options struct {
	ttl            time.Duration
	maxTerminal    int
	interruptedTTL time.Duration
	owners         sqlrecord.OwnerCaps // the per-owner caps (owners.go)
	synchronous    string
	busyTimeout    time.Duration
	buffer         int
	logger         *slog.Logger
	now            func() time.Time
	readers        int
	// cacheRecords bounds the record cache's least-recently-used part
	// (tests change it).
	cacheRecords int
	// noCheckpoints turns checkpoints off (tests that read the WAL).
	noCheckpoints bool
	shared        bool
	err           error
}

// WithSharedAccess lets other processes open the database with this
// package at the same time. By default Open locks the file for this
// process (a second agent on it is refused with an error naming the
// holder), which also lets the store tell at once that the executions of
// an earlier process — one killed, or a container restarted with a new pid
// namespace — have ended, instead of waiting for their leases. Shared, the
// store waits for those leases (except for processes it sees gone on this
// host), and the other process's writes reach neither this process's
// subscribers nor its cache (see the package documentation).
func WithSharedAccess() Option {
	return func(o *options) { o.shared = true }
}

// WithRetention sets which tasks the store keeps (store.Retention). Reads
// treat a task past a TTL as gone at once; the sweep removes it within
// about a second. The per-owner bounds hold at every commit (owners.go).
func WithRetention(r store.Retention) Option {
	return func(o *options) {
		o.ttl, o.maxTerminal, o.interruptedTTL = max(r.TerminalTaskTTL, 0), max(r.MaxTerminalTasks, 0), max(r.InterruptedTaskTTL, 0)
		o.owners = sqlrecord.OwnerCapsOf(r)
	}
}

// WithSynchronous sets SQLite's synchronous mode: "normal" (the default;
// survives process crashes, a power loss may lose the last commits) or
// "full" (survives power loss; an fsync per commit). Anything else makes
// Open fail.
func WithSynchronous(mode string) Option {
	return func(o *options) {
		switch m := strings.ToLower(mode); m {
		case "normal", "full":
			o.synchronous = m
		default:
			o.err = fmt.Errorf("synchronous mode %q is not supported; use \"normal\" or \"full\"", mode)
		}
	}
}

// WithBusyTimeout sets how long a connection waits for a lock held by
// another process before the operation fails (default 5s).
func WithBusyTimeout(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.busyTimeout = d
		}
	}
}

// WithSubscriberBuffer sets how many unread events a subscription may hold
// before it is dropped with store.ErrSlowSubscriber; n < 1 keeps
// store.DefaultSubscriberBuffer.
func WithSubscriberBuffer(n int) Option {
	return func(o *options) { o.buffer = n }
}

// WithLogger sets where the store reports problems it handles itself (a
// failed retention sweep); the default is slog.Default().
func WithLogger(l *slog.Logger) Option {
	return func(o *options) { o.logger = cmp.Or(l, o.logger) }
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

// WithReadConnections sets the size of the read connection pool (default:
// GOMAXPROCS, at least 4).
func WithReadConnections(n int) Option {
	return func(o *options) {
		if n > 0 {
			o.readers = n
		}
	}
}

// withCachedRecords bounds the record cache's least-recently-used part to n
// records; 0 caches only running tasks, -1 nothing (tests).
func withCachedRecords(n int) Option {
	return func(o *options) { o.cacheRecords = n }
}

// withoutCheckpoints keeps every page in the WAL until Close (tests).
func withoutCheckpoints() Option {
	return func(o *options) { o.noCheckpoints = true }
}

// Stats are counters of the store since Open.
type Stats struct {
	// Transactions is the number of committed write transactions.
	Transactions int64
	// Writes is the number of write operations committed (successful ones;
	// several share a transaction).
	Writes int64
	// RolledBack is the number of write transactions that failed with a
	// database error.
	RolledBack int64
	// TerminalTasks is the number of terminal tasks stored.
	TerminalTasks int64
}

// Store is the SQLite store.Store. It is safe for concurrent use.
type Store struct {
	store.Unshared // events and signals stay in this process, WithSharedAccess too

	path   string
	names  sqlrecord.Names   // in errors
	cut    sqlrecord.Cutoffs // retention as reads see it
	opts   options
	broker *store.Broker
	wake   chan struct{}
	closed atomic.Bool

	wdb   *sql.DB   // the writer's pool: one connection
	wconn *sql.Conn // owned by the writer goroutine
	w     *writer
	ckpt  *checkpointer // nil without checkpoints
	// lock makes this process the only agent process on the file
	// (lock_unix.go): the runners of other processes are then gone.
	lock *os.File

	rdb  *sql.DB // read-only connections
	read readStmts

	cache *recordCache

	listMu    sync.Mutex
	listStmts map[sqlrecord.Shape]*listStmt

	closeOnce sync.Once
	closeErr  error

	transactions, writes, rolledBack, terminal atomic.Int64
}

var _ store.Store = (*Store)(nil)

// errInUse is the cause of Open's error when another process holds the
// database.
var errInUse = errors.New("the database is in use by another agent process")

// Open opens (creating it and its directory if needed) the SQLite database
// at path, brings its schema up to date and starts the writer.
func Open(ctx context.Context, path string, opts ...Option) (_ *Store, err error) {
	o := options{synchronous: "normal", busyTimeout: 5 * time.Second, logger: slog.Default(), now: time.Now,
		readers: max(4, runtime.GOMAXPROCS(0)), cacheRecords: cacheRecords}
	for _, opt := range opts {
		opt(&o)
	}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("sqlite store %s: "+format, append([]any{path}, args...)...)
	}
	if o.err != nil {
		return nil, fail("%w", o.err)
	}
	abs, err := prepareFile(path)
	if err != nil {
		return nil, fail("%w", err)
	}
	var lock *os.File
	var lockCreated bool
	if !o.shared {
		if lock, lockCreated, err = lockDatabase(abs); err != nil {
			return nil, fail("%w", err)
		}
	}
	defer func() {
		if err != nil && lock != nil {
			if lockCreated {
				os.Remove(abs + "-lock") // while holding it: a failed Open leaves nothing behind
			}
			lock.Close() // releases the lock
		}
	}()

	s := &Store{path: path, opts: o, lock: lock, names: sqlrecord.Names("sqlite store " + path),
		cut: sqlrecord.Cutoffs{TTL: o.ttl, InterruptedTTL: o.interruptedTTL, Now: o.now}, broker: store.NewBroker(o.buffer), wake: make(chan struct{}, 1),
		listStmts: make(map[sqlrecord.Shape]*listStmt), cache: newRecordCache(o.cacheRecords, cacheBytes)}
	if err := s.openConnections(ctx, abs); err != nil {
		s.closeDBs()
		return nil, fail("%w", err)
	}
	if s.ckpt != nil {
		go s.ckpt.run(s)
	}
	go s.w.loop()
	return s, nil
}

// prepareFile checks that path can name the database file and creates its
// directory; it returns the absolute path.
func prepareFile(path string) (string, error) {
	if path == "" || path == ":memory:" || strings.HasPrefix(path, "file:") {
		return "", errors.New("the store needs the path of a database file")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if dir := filepath.Dir(abs); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				return "", fmt.Errorf("cannot create directory %s: %w%s", shownPath(path, pe.Path), pe.Err, dirHint(pe.Err))
			}
			return "", fmt.Errorf("cannot create directory %s: %w", filepath.Dir(path), err)
		}
	}
	if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
		return "", errors.New("is a directory; give the path of a database file")
	}
	if err := checkDatabaseFile(abs); err != nil {
		return "", err
	}
	return abs, nil
}

// openConnections opens the store's three kinds of connection to the file
// at abs: the writer's (schema brought up to date, statements prepared,
// retention loaded), the readers' and the checkpointer's. On an error the
// caller closes what was opened (closeDBs).
func (s *Store) openConnections(ctx context.Context, abs string) error {
	busy := "busy_timeout(" + strconv.FormatInt(s.opts.busyTimeout.Milliseconds(), 10) + ")"
	if err := s.openWriter(ctx, abs, busy); err != nil {
		return err
	}
	if err := s.openReaders(ctx, abs, busy); err != nil {
		return err
	}
	if s.opts.noCheckpoints {
		return nil
	}
	return s.openCheckpointer(ctx, abs, busy)
}

// openWriter opens the one write connection in WAL mode, migrates the
// schema and prepares the writer (not started yet).
func (s *Store) openWriter(ctx context.Context, abs, busy string) (err error) {
	s.wdb, err = sql.Open("sqlite", dsn(abs, busy, "journal_mode(WAL)", "synchronous("+s.opts.synchronous+")",
		// The checkpointer, not the writer, checkpoints (checkpoint.go).
		"wal_autocheckpoint(0)",
		// When the WAL starts over, a WAL grown past 64 MiB is truncated.
		"journal_size_limit(67108864)",
		// The writer's page cache (16 MiB; SQLite's default is 2 MiB)
		// stays valid across transactions, since no one else writes: it
		// keeps the pages the writes touch.
		"cache_size(-16384)"))
	if err != nil {
		return err
	}
	s.wdb.SetMaxOpenConns(1)
	s.wdb.SetMaxIdleConns(1)
	s.wdb.SetConnMaxLifetime(0)
	s.wdb.SetConnMaxIdleTime(0)
	if s.wconn, err = s.wdb.Conn(ctx); err != nil {
		return fmt.Errorf("cannot open the database: %w%s", err, openHint(err))
	}
	var mode string
	if err := s.wconn.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return fmt.Errorf("cannot open the database: %w%s", err, openHint(err))
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("cannot use WAL journal mode (the database is in %q mode); put the file on a local file system", mode)
	}
	migrations, err := migrate.Load(migrationFiles, "migrations")
	if err != nil {
		return err
	}
	if _, err := migrate.Up(ctx, s.wconn, migrations, migrate.Dialect{Begin: "BEGIN IMMEDIATE"}); err != nil {
		return fmt.Errorf("%w%s", err, openHint(err))
	}
	if err := s.settleOwnerCounts(ctx, s.wconn); err != nil {
		return fmt.Errorf("%w%s", err, openHint(err))
	}
	s.w = &writer{s: s, conn: s.wconn, ops: make(chan writeOp, 1024), quit: make(chan struct{}), done: make(chan struct{})}
	if err := s.w.prepare(ctx); err != nil {
		return fmt.Errorf("preparing statements: %w", err)
	}
	return s.w.loadRetention(ctx)
}

// openReaders opens the pool of read-only connections and prepares their
// statements.
func (s *Store) openReaders(ctx context.Context, abs, busy string) (err error) {
	if s.rdb, err = sql.Open("sqlite", dsn(abs, busy, "query_only(1)")); err != nil {
		return err
	}
	s.rdb.SetMaxOpenConns(s.opts.readers)
	s.rdb.SetMaxIdleConns(s.opts.readers)
	if err := s.read.prepare(ctx, s.rdb); err != nil {
		return fmt.Errorf("preparing statements: %w", err)
	}
	return nil
}

// openCheckpointer opens the checkpointer's connection (not started yet).
func (s *Store) openCheckpointer(ctx context.Context, abs, busy string) (err error) {
	c := &checkpointer{kick: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	if c.db, err = sql.Open("sqlite", dsn(abs, busy, "synchronous("+s.opts.synchronous+")")); err != nil {
		return err
	}
	s.ckpt = c
	c.db.SetMaxOpenConns(1)
	if c.conn, err = c.db.Conn(ctx); err != nil {
		return fmt.Errorf("cannot open the database: %w%s", err, openHint(err))
	}
	return nil
}

// dirHint says what to do about an error creating the directory.
func dirHint(err error) string {
	switch {
	case errors.Is(err, fs.ErrPermission):
		return "; create it, or give the store a path this user may write to"
	case errors.Is(err, fs.ErrExist), errors.Is(err, syscall.ENOTDIR):
		return "; a file of that name is in the way"
	}
	return ""
}

// openHint says what to do about an error opening the database.
func openHint(err error) string {
	var e *sqlitedrv.Error
	if !errors.As(err, &e) {
		return ""
	}
	switch e.Code() & 0xff {
	case 26: // SQLITE_NOTADB
		return "; the file is not an SQLite database: give the path of a store's database or of a new file"
	case 14: // SQLITE_CANTOPEN
		return "; check that the file and its directory exist and are readable and writable"
	case 8, 3: // SQLITE_READONLY, SQLITE_PERM
		return "; the file or its directory is read-only: the store needs to write both"
	case 5, 6: // SQLITE_BUSY, SQLITE_LOCKED
		return "; another process holds the database locked"
	case 11: // SQLITE_CORRUPT
		return "; the database is damaged: restore it from a backup"
	}
	return ""
}

// shownPath is abs as the user would write it: relative to the working
// directory when the store's path was relative.
func shownPath(path, abs string) string {
	if filepath.IsAbs(path) {
		return abs
	}
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, abs); err == nil {
			return rel
		}
	}
	return abs
}

// dsn is the driver's name of the database file at abs with pragmas run on
// every new connection.
func dsn(abs string, pragmas ...string) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive letter
	}
	q := url.Values{"_pragma": pragmas}
	return "file:" + (&url.URL{Path: p}).EscapedPath() + "?" + q.Encode()
}

// Path returns the path the store was opened with.
func (s *Store) Path() string { return s.path }

// Stats returns the store's counters.
func (s *Store) Stats() Stats {
	return Stats{Transactions: s.transactions.Load(), Writes: s.writes.Load(), RolledBack: s.rolledBack.Load(),
		TerminalTasks: s.terminal.Load()}
}

// Close implements store.Store: it stops the writer (writes still queued
// fail with store.ErrClosed; a transaction in progress completes), ends
// every subscription with store.ErrClosed and closes the database. Later
// calls fail with store.ErrClosed.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.closed.Store(true)
		close(s.w.quit)
		<-s.w.done
		if s.ckpt != nil {
			close(s.ckpt.quit)
			<-s.ckpt.done
		}
		s.broker.Close()
		s.closeErr = s.closeDBs()
		if s.lock != nil {
			s.lock.Close() // releases the lock, after the last write
		}
		if s.closeErr != nil {
			s.closeErr = fmt.Errorf("sqlite store %s: closing: %w", s.path, s.closeErr)
		}
	})
	return s.closeErr
}

// closeDBs releases the statements and both pools.
func (s *Store) closeDBs() error {
	var errs []error
	s.listMu.Lock()
	for _, st := range s.listStmts {
		errs = append(errs, st.count.Close(), st.page.Close())
	}
	s.listStmts = nil
	s.listMu.Unlock()
	errs = append(errs, s.read.close())
	if s.rdb != nil {
		errs = append(errs, s.rdb.Close())
	}
	// The writer's connection is closed last: SQLite then checkpoints the
	// whole WAL and removes it.
	if s.ckpt != nil {
		if s.ckpt.conn != nil {
			errs = append(errs, s.ckpt.conn.Close())
		}
		errs = append(errs, s.ckpt.db.Close())
	}
	if s.w != nil {
		errs = append(errs, s.w.closeStmts())
	}
	if s.wconn != nil {
		errs = append(errs, s.wconn.Close())
	}
	if s.wdb != nil {
		errs = append(errs, s.wdb.Close())
	}
	return errors.Join(errs...)
}

func (s *Store) checkOpen() error {
	if s.closed.Load() {
		return store.ErrClosed
	}
	return nil
}

// readErr turns a failed read into the error the store reports.
func (s *Store) readErr(what string, err error) error { return s.names.Err(s.closed.Load(), what, err) }

// now is the store's clock in unix nanoseconds.
func (s *Store) now() int64 { return s.cut.NowNanos() }

// waitingSince and liveSince are the retention cutoffs now
// (sqlrecord.Cutoffs).
func (s *Store) waitingSince() int64 { return s.cut.WaitingSince(s.now()) }

func (s *Store) liveSince() int64 { return s.cut.LiveSince(s.now()) }

// timeOf is the time of a nullable column (NULL: zero time).
func timeOf(v sql.NullInt64) time.Time { return sqlrecord.TimeOf(v.Int64, v.Valid) }

// sqliteHeader is how every SQLite database file begins.
const sqliteHeader = "SQLite format 3\x00"

// checkDatabaseFile refuses a file that exists and is not a SQLite
// database, before Open creates anything next to it (the lock file, the
// WAL): pointed at /etc/passwd, Open must leave /etc untouched. A missing
// or empty file is fine: SQLite makes it a new database.
func checkDatabaseFile(abs string) error {
	f, err := os.Open(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot open the database: %w", err)
	}
	defer f.Close()
	head := make([]byte, len(sqliteHeader))
	n, err := io.ReadFull(f, head)
	switch {
	case n == 0 && (err == io.EOF || err == nil):
		return nil
	case string(head[:n]) != sqliteHeader:
		return errors.New("is not an SQLite database (it does not begin with \"SQLite format 3\"): give the path of a store's database or of a new file")
	case err != nil && err != io.ErrUnexpectedEOF:
		return fmt.Errorf("cannot read the database: %w", err)
	}
	return nil
}
