// Package storeurl opens the task store an operator names with a URL, as in
// an agent's -store flag or its A2A_STORE environment variable:
//
//	memory                      in-memory; nothing survives the process
//	sqlite:data/agent.db        SQLite file, relative to the working directory
//	sqlite:/var/lib/agent.db    SQLite file, absolute path
//	sqlite:///var/lib/agent.db  the same, written as a URL
//	postgres://USER:PASSWORD@HOST:5432/DB?sslmode=verify-full
//	                            PostgreSQL, shared by the replicas of an agent
//	                            (postgresql:// too)
//
// A SQLite URL may carry parameters: ?synchronous=normal|full (how hard each
// write is pushed to disk: normal, the default, may lose the last writes in
// a power cut, never in a crash of the process; full loses none) and
// ?busy_timeout=5s (how long a write waits for another process holding the
// database). Percent-escapes in the path are decoded, so a path containing
// "?" or "%" is written with %3F or %25. The database's directory and file
// are created when missing.
//
// A PostgreSQL URL is a libpq connection URL as pgx reads it: every
// parameter pgx understands passes through, such as sslmode, sslrootcert,
// connect_timeout, application_name, pool_max_conns and the other pool_*
// settings of pgxpool, and parameters pgx does not know are sent to the
// server as run-time settings (statement_timeout=30s, say). Two parameters
// are the store's own and are not sent: schema=NAME keeps the store's
// tables in that schema (created if missing; the default is the first
// schema of the search path, usually public), and channel=NAME sets the
// NOTIFY channel the replicas announce their writes on (default
// a2a_events). The schema is created or upgraded at open; a database that
// cannot be reached is an error naming its address.
//
// Every error is an *Error naming the URL, with any password in it replaced
// by "xxxxx"; Describe gives that form for log lines.
package storeurl

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/a2agen/a2agen/internal/redact"
	"github.com/a2agen/a2agen/server/store"
	"github.com/a2agen/a2agen/server/store/postgres"
	"github.com/a2agen/a2agen/server/store/sqlite"
)

// Forms is the one-line summary of the accepted URLs, for help texts and
// error messages.
const Forms = "memory, sqlite:PATH (sqlite:data/agent.db, sqlite:/var/lib/agent.db or sqlite:///var/lib/agent.db; parameters ?synchronous=normal|full&busy_timeout=5s), " +
	"postgres://USER:PASSWORD@HOST:PORT/DATABASE (or postgresql://; pgx's parameters such as sslmode and pool_max_conns, and schema=NAME, channel=NAME)"

// Options apply to whichever store a URL opens.
type Options struct {
	// Retention is what the store keeps, whichever store the URL names
	// (each takes it through its WithRetention); the zero value keeps
	// every task, and a negative field is refused (0 is no bound).
	Retention store.Retention
	// Logger receives what a durable store reports in the background; nil
	// leaves the store's default.
	Logger *slog.Logger
}

// Error is the failure to parse or open a store URL.
type Error struct {
	// URL is the store URL as Describe gives it: passwords redacted.
	URL string
	// Err says what is wrong.
	Err error
}

func (e *Error) Error() string {
	if e.URL == "" {
		return "store: " + e.Err.Error()
	}
	return "store " + e.URL + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// kind is what a URL selects.
type kind int

const (
	kindMemory kind = iota + 1
	kindSQLite
	kindPostgres
)

// spec is a parsed store URL.
type spec struct {
	kind kind
	// SQLite only.
	path        string
	synchronous string        // "" (the store's default), "normal" or "full"
	busyTimeout time.Duration // 0: the store's default
	busySet     bool
	// PostgreSQL only.
	conn    string // the connection string for pgx: the URL without the store's own parameters
	schema  string // "" (the search path's first schema) or a schema name
	channel string // "" (postgres.DefaultChannel) or a channel name
}

// Open parses rawURL and opens the store it names with opts. The caller
// closes the store after the server using it has shut down.
func Open(ctx context.Context, rawURL string, opts Options) (store.Store, error) {
	sp, err := parse(rawURL)
	if err != nil {
		return nil, err
	}
	fail := func(err error) error { return &Error{URL: Describe(rawURL), Err: err} }
	if err := checkRetention(opts.Retention); err != nil {
		return nil, fail(err)
	}
	switch sp.kind {
	case kindMemory:
		return store.NewMemory(store.WithRetention(opts.Retention)), nil
	case kindSQLite:
		st, err := sqlite.Open(ctx, sp.path, sp.sqliteOptions(opts)...)
		if err != nil {
			return nil, fail(withoutPrefix(err, "sqlite store "+sp.path+": "))
		}
		return st, nil
	case kindPostgres:
		st, err := postgres.Open(ctx, sp.conn, sp.postgresOptions(opts)...)
		if err != nil {
			return nil, fail(withoutPrefix(err, "postgres store "+postgres.Describe(sp.conn)+": "))
		}
		return st, nil
	}
	return nil, fail(fmt.Errorf("unknown store kind %d", sp.kind)) // unreachable
}

// checkRetention refuses negative bounds: 0, not a negative number, is no
// bound.
func checkRetention(r store.Retention) error {
	switch {
	case r.TerminalTaskTTL < 0 || r.MaxTerminalTasks < 0:
		return errors.New("the terminal-task TTL and maximum must not be negative (0 means no bound)")
	case r.MaxTerminalTasksPerOwner < 0 || r.MaxInterruptedTasksPerOwner < 0 || r.MaxBytesPerOwner < 0:
		return errors.New("the per-owner task maximums must not be negative (0 means no bound)")
	case r.InterruptedTaskTTL < 0:
		return errors.New("the interrupted-task TTL must not be negative (0 means no bound)")
	}
	return nil
}

// sqliteOptions are the SQLite store's options for this URL and opts.
func (sp spec) sqliteOptions(opts Options) []sqlite.Option {
	sopts := []sqlite.Option{sqlite.WithRetention(opts.Retention)}
	if sp.synchronous != "" {
		sopts = append(sopts, sqlite.WithSynchronous(sp.synchronous))
	}
	if sp.busySet {
		sopts = append(sopts, sqlite.WithBusyTimeout(sp.busyTimeout))
	}
	if opts.Logger != nil {
		sopts = append(sopts, sqlite.WithLogger(opts.Logger))
	}
	return sopts
}

// postgresOptions are the PostgreSQL store's options for this URL and opts.
func (sp spec) postgresOptions(opts Options) []postgres.Option {
	popts := []postgres.Option{postgres.WithRetention(opts.Retention)}
	if sp.schema != "" {
		popts = append(popts, postgres.WithSchema(sp.schema))
	}
	if sp.channel != "" {
		popts = append(popts, postgres.WithChannel(sp.channel))
	}
	if opts.Logger != nil {
		popts = append(popts, postgres.WithLogger(opts.Logger))
	}
	return popts
}

// parse reads a store URL. Every error is an *Error.
func parse(raw string) (spec, error) {
	sp, err := parseSpec(raw)
	if err != nil {
		return spec{}, &Error{URL: Describe(raw), Err: err}
	}
	return sp, nil
}

// parseSpec reads a store URL by its scheme.
func parseSpec(raw string) (spec, error) {
	scheme, rest, hasColon := strings.Cut(raw, ":")
	if !hasColon {
		return parseBare(raw)
	}
	switch strings.ToLower(scheme) {
	case "memory":
		if rest != "" {
			return spec{}, errors.New("memory takes no path or parameters; write memory")
		}
		return spec{kind: kindMemory}, nil
	case "sqlite":
		return parseSQLite(rest)
	case "postgres", "postgresql":
		return parsePostgres(strings.ToLower(scheme), rest)
	}
	return spec{}, fmt.Errorf("unknown store scheme %q; use %s", scheme, Forms)
}

// parseBare reads a store URL without a colon: memory, or a mistake that
// the error explains.
func parseBare(raw string) (spec, error) {
	switch {
	case raw == "":
		return spec{}, fmt.Errorf("no store URL given; use %s", Forms)
	case strings.EqualFold(raw, "memory"):
		return spec{kind: kindMemory}, nil
	case strings.EqualFold(raw, "sqlite"):
		return spec{}, errNoSQLitePath
	case strings.ContainsAny(raw, `/\.`):
		return spec{}, fmt.Errorf("no scheme: for a SQLite file write sqlite:%s; the accepted forms are %s", raw, Forms)
	}
	return spec{}, fmt.Errorf("unknown store; use %s", Forms)
}

var errNoSQLitePath = errors.New("no database path; write sqlite:PATH, e.g. sqlite:data/agent.db")

// parseSQLite reads the part of a sqlite: URL after the colon.
func parseSQLite(rest string) (spec, error) {
	rawPath, query, _ := strings.Cut(rest, "?")
	path, err := sqlitePath(rawPath)
	if err != nil {
		return spec{}, err
	}
	sp := spec{kind: kindSQLite, path: path}
	if query == "" {
		return sp, nil
	}
	values, err := url.ParseQuery(query)
	if err != nil {
		return spec{}, fmt.Errorf("parameters: %v", err)
	}
	if err := checkSQLiteParams(values); err != nil {
		return spec{}, err
	}
	if err := setParams(&sp, values, sqliteParams); err != nil {
		return spec{}, err
	}
	return sp, nil
}

// sqlitePath is the database file a sqlite: URL names: the path after
// sqlite: or sqlite://, percent-decoded, refused when it cannot name a file.
func sqlitePath(path string) (string, error) {
	if after, ok := strings.CutPrefix(path, "//"); ok {
		if !strings.HasPrefix(after, "/") {
			return "", errors.New("sqlite:// is followed by a host, not a path; write sqlite:PATH for a relative path (sqlite:data/agent.db) or sqlite:///ABSOLUTE/PATH (or sqlite:/ABSOLUTE/PATH) for an absolute one")
		}
		path = after
	}
	path, err := url.PathUnescape(path)
	switch {
	case err != nil:
		return "", errors.New("the path has an invalid %-escape (write % itself as %25)")
	case path == "":
		return "", errNoSQLitePath
	case strings.ContainsRune(path, 0):
		return "", errors.New("the path contains a NUL byte")
	case path == ":memory:" || strings.HasPrefix(path, "file:"):
		return "", errors.New("the path must name a file (for a store that keeps nothing, use memory)")
	case strings.HasSuffix(path, "/"):
		return "", fmt.Errorf("the path %s names a directory; name the database file, e.g. %s", quoteIfOdd(path), quoteIfOdd(path+"agent.db"))
	}
	return path, nil
}

// param is a query parameter a store URL gives the store itself: set
// checks its one value and records it in the spec.
type param struct {
	name string
	set  func(sp *spec, v string) error
}

// sqliteParams are the query parameters a SQLite URL accepts.
var sqliteParams = []param{
	{"synchronous", func(sp *spec, v string) error {
		switch s := strings.ToLower(v); s {
		case "normal", "full":
			sp.synchronous = s
			return nil
		}
		return fmt.Errorf("synchronous=%s: want normal or full", quoteIfOdd(v))
	}},
	{"busy_timeout", func(sp *spec, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return fmt.Errorf("busy_timeout=%s: want a duration such as 5s or 500ms", quoteIfOdd(v))
		}
		sp.busyTimeout, sp.busySet = d, true
		return nil
	}},
}

// postgresParams are the query parameters of a PostgreSQL URL that the
// store takes itself (all others go to pgx); each is a name.
var postgresParams = []param{
	{"schema", func(sp *spec, v string) error { sp.schema = v; return nil }},
	{"channel", func(sp *spec, v string) error {
		if len(v) > 63 {
			return fmt.Errorf("channel=%s: a channel name has at most 63 bytes", v)
		}
		sp.channel = v
		return nil
	}},
}

// checkSQLiteParams refuses a SQLite parameter given more than once, then any
// parameter a SQLite URL does not take.
func checkSQLiteParams(values url.Values) error {
	var unknown []string
	for _, k := range slices.Sorted(maps.Keys(values)) {
		if !isParam(sqliteParams, k) {
			unknown = append(unknown, strconv.Quote(k))
		} else if len(values[k]) > 1 {
			return errGivenTwice(k, len(values[k]))
		}
	}
	if len(unknown) > 0 {
		return fmt.Errorf("unknown %s %s; a SQLite store accepts synchronous=normal|full and busy_timeout=DURATION",
			plural(len(unknown), "parameter", "parameters"), strings.Join(unknown, ", "))
	}
	return nil
}

func errGivenTwice(name string, n int) error {
	return fmt.Errorf("parameter %s is given %d times", name, n)
}

func isParam(params []param, name string) bool {
	return slices.ContainsFunc(params, func(p param) bool { return p.name == name })
}

// setParams sets each of params that values holds, given once.
func setParams(sp *spec, values url.Values, params []param) error {
	for _, p := range params {
		v, ok := values[p.name]
		if !ok {
			continue
		}
		if len(v) > 1 {
			return errGivenTwice(p.name, len(v))
		}
		if err := p.set(sp, v[0]); err != nil {
			return err
		}
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// parsePostgres reads a postgres: or postgresql: URL (scheme lowercased;
// rest is what follows the colon).
func parsePostgres(scheme, rest string) (spec, error) {
	if !strings.HasPrefix(rest, "//") {
		return spec{}, fmt.Errorf("write a PostgreSQL URL as %s://USER:PASSWORD@HOST:PORT/DATABASE", scheme)
	}
	sp := spec{kind: kindPostgres}
	base, query, _ := strings.Cut(rest, "?")
	values, err := url.ParseQuery(query)
	if err != nil {
		return spec{}, fmt.Errorf("parameters: %v", err)
	}
	if err := setParams(&sp, values, postgresNames); err != nil {
		return spec{}, err
	}
	sp.conn = scheme + ":" + base
	if kept := pgxParams(query); len(kept) > 0 {
		sp.conn += "?" + strings.Join(kept, "&")
	}
	if _, err := pgxpool.ParseConfig(sp.conn); err != nil {
		return spec{}, errors.New(pgxParseMessage(err))
	}
	return sp, nil
}

// postgresNames are postgresParams, each refusing an empty value or one
// with a NUL byte before its own check.
var postgresNames = func() []param {
	named := make([]param, len(postgresParams))
	for i, p := range postgresParams {
		named[i] = param{p.name, func(sp *spec, v string) error {
			if v == "" || strings.ContainsRune(v, 0) {
				return fmt.Errorf("%s=%s: want a name", p.name, quoteIfOdd(v))
			}
			return p.set(sp, v)
		}}
	}
	return named
}()

// pgxParams are the parameters of query, as written, that are not the
// store's own: they go to pgx.
func pgxParams(query string) []string {
	var kept []string
	for _, p := range strings.Split(query, "&") {
		k, _, _ := strings.Cut(p, "=")
		if name, err := url.QueryUnescape(k); err == nil && isParam(postgresParams, name) {
			continue
		}
		if p != "" {
			kept = append(kept, p)
		}
	}
	return kept
}

// pgxParseMessage is what is wrong with a connection string pgx refused,
// without pgx's repetition of the (redacted) string itself.
func pgxParseMessage(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "`: "); strings.HasPrefix(msg, "cannot parse `") && i >= 0 {
		return "invalid PostgreSQL URL: " + msg[i+3:]
	}
	return "invalid PostgreSQL URL: " + msg
}

// withoutPrefix drops prefix from the message of err (the store's own
// mention of the path, which the store URL in front of it already gives),
// keeping err in the chain for errors.Is and errors.As.
func withoutPrefix(err error, prefix string) error {
	msg, ok := strings.CutPrefix(err.Error(), prefix)
	if !ok || msg == "" {
		return err
	}
	return &redact.Edited{Msg: msg, Err: err}
}

// Describe returns rawURL as it may appear in logs and error messages: the
// password of its user info (postgres://user:xxxxx@host/db) and the values
// of password parameters replaced by "xxxxx", quoted when it holds
// characters that do not print. It does not check that the URL is valid.
func Describe(rawURL string) string {
	s := redactUserinfo(rawURL)
	s = redact.QueryPasswords(s)
	if strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return strconv.Quote(s)
	}
	return s
}

// redactUserinfo hides the password of scheme://user:password@host…
// (redact.Userinfo). URLs of stores without credentials (memory, sqlite)
// are returned unchanged, since their paths may hold colons and @.
func redactUserinfo(s string) string {
	scheme, _, _ := strings.Cut(s, ":")
	switch strings.ToLower(scheme) {
	case "memory", "sqlite":
		return s
	}
	return redact.Userinfo(s)
}

// quoteIfOdd quotes s when it is empty or holds spaces or characters that
// do not print, so that an error message shows exactly what was given.
func quoteIfOdd(s string) string {
	if s == "" || strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) || unicode.IsSpace(r) }) >= 0 {
		return strconv.Quote(s)
	}
	return s
}
