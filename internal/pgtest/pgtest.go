// Package pgtest gives tests a real PostgreSQL server: the URL from the
// environment variable A2AGEN_TEST_POSTGRES, and a fresh schema per test.
//
// Without the variable, tests that need PostgreSQL skip with one line naming
// it; with the variable set, a server that cannot be reached fails the test
// (CI sets it, so a missing server is never mistaken for a pass).
//
// The URL that URL returns turns synchronous_commit off for the sessions of
// the test (see FastCommits): a commit is not waited for until it is on
// disk, which is what most of a PostgreSQL test's time went to. Nothing a
// test sees changes (what is committed is visible at once, to every
// session); only a crash of the shared server could lose the last commits,
// and no test crashes it — the tests of a server that stops and restarts
// use a server of their own (StartServer), with every default kept.
//
//	url := pgtest.URL(t)             // skips or fails as above
//	schema := pgtest.Schema(t, url)  // created now, dropped with everything in it at cleanup
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Env is the environment variable holding the URL of the test server, e.g.
// postgres://postgres@127.0.0.1:5432/test?sslmode=disable.
const Env = "A2AGEN_TEST_POSTGRES"

// reachable caches, per URL, the outcome of the first connection attempt of
// the process, so that a missing server costs one timeout, not one per test.
var reachable sync.Map // url -> error (nil: reachable)

// URL returns the URL of the test server. It skips the test when Env is not
// set and fails it when the server named there cannot be reached.
func URL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(Env)
	if u == "" {
		t.Skip("set " + Env + " to a PostgreSQL URL to run the PostgreSQL tests")
	}
	v, ok := reachable.Load(u)
	if !ok {
		err := ping(u)
		v, _ = reachable.LoadOrStore(u, errBox{err})
	}
	if err := v.(errBox).err; err != nil {
		t.Fatalf("%s=%s: cannot reach the PostgreSQL server: %v", Env, redact(u), err)
	}
	return FastCommits(u)
}

// FastCommits returns the connection string conn with synchronous_commit
// off for its sessions (a run-time parameter pgx sends when it connects;
// server/storeurl passes it through), unless conn sets synchronous_commit
// itself. conn is a postgres:// URL or a keyword/value string.
func FastCommits(conn string) string {
	if strings.Contains(conn, "synchronous_commit") {
		return conn
	}
	if !strings.HasPrefix(conn, "postgres://") && !strings.HasPrefix(conn, "postgresql://") {
		return conn + " synchronous_commit=off"
	}
	sep := "?"
	if strings.Contains(conn, "?") {
		sep = "&"
	}
	return conn + sep + "synchronous_commit=off"
}

type errBox struct{ err error }

func ping(u string) error {
	return withConn(u, 10*time.Second, func(ctx context.Context, conn *pgx.Conn) error { return conn.Ping(ctx) })
}

// withConn runs f on a connection to the database at url, both within
// timeout.
func withConn(url string, timeout time.Duration, f func(context.Context, *pgx.Conn) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	return f(ctx, conn)
}

// Schema creates a schema with a random name in the database at url and
// returns its name. It is dropped, with everything in it, at the test's
// cleanup, after the cleanups registered later (so stores opened on it after
// Schema returned are closed first).
func Schema(t testing.TB, url string) string {
	t.Helper()
	return createForTest(t, url, "schema", "CREATE SCHEMA %s", "DROP SCHEMA %s CASCADE")
}

// Database creates a database with a random name on the server at url and
// returns url naming it instead; it is dropped at the test's cleanup (its
// sessions ended first). A test needs one of its own rather than a schema
// when what it checks depends on the other sessions of the database: VACUUM
// marks rows visible to every transaction (which an index-only scan needs)
// only when no transaction of the same database is older than they are,
// and the tests of other packages share the database of url.
func Database(t testing.TB, rawURL string) string {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		t.Fatalf("pgtest.Database needs a postgres:// URL, not %s", redact(rawURL))
	}
	name := createForTest(t, rawURL, "database", "CREATE DATABASE %s", "DROP DATABASE %s WITH (FORCE)")
	u.Path = "/" + name
	return u.String()
}

// createForTest creates an object (what: a schema, a database) with a
// random name through the statement create, and drops it through drop at
// the test's cleanup; both take the quoted name for %s.
func createForTest(t testing.TB, url, what, create, drop string) string {
	t.Helper()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "a2a_test_" + hex.EncodeToString(b)
	quoted := pgx.Identifier{name}.Sanitize()
	if err := execSQL(url, fmt.Sprintf(create, quoted)); err != nil {
		t.Fatalf("creating test %s %s: %v", what, name, err)
	}
	t.Cleanup(func() {
		if err := execSQL(url, fmt.Sprintf(drop, quoted)); err != nil {
			t.Errorf("dropping test %s %s: %v", what, name, err)
		}
	})
	return name
}

// WithSchema returns url with the store URL parameter schema=NAME added (as
// server/storeurl understands it).
func WithSchema(rawURL, schema string) string {
	sep := "?"
	if strings.Contains(rawURL, "?") {
		sep = "&"
	}
	return rawURL + sep + "schema=" + url.QueryEscape(schema)
}

func execSQL(url, sql string) error {
	return withConn(url, 30*time.Second, func(ctx context.Context, conn *pgx.Conn) error {
		_, err := conn.Exec(ctx, sql)
		return err
	})
}

// redact hides the password of a URL for messages.
func redact(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(an unparsable URL)"
	}
	return p.Redacted()
}
