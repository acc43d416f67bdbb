package migrate

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	_ "modernc.org/sqlite"
)

var sqlite = Dialect{Begin: "BEGIN IMMEDIATE"}

func open(t *testing.T, path string) *sql.Conn {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

func load(t *testing.T, files map[string]string) []Migration {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, body := range files {
		fsys["m/"+name] = &fstest.MapFile{Data: []byte(body)}
	}
	ms, err := Load(fsys, "m")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return ms
}

var (
	one = map[string]string{"0001_init.sql": "CREATE TABLE a (x INTEGER);"}
	two = map[string]string{
		"0001_init.sql": "CREATE TABLE a (x INTEGER);",
		"0002_more.sql": "CREATE TABLE b (y TEXT);\nCREATE INDEX b_y ON b(y);",
		"README.md":     "not a migration",
		"notes.txt":     "ignored",
	}
)

func version(t *testing.T, conn *sql.Conn) int {
	t.Helper()
	var v int
	if err := conn.QueryRowContext(context.Background(), "SELECT COALESCE(MAX(version), 0) FROM schema_migrations").Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func tableExists(t *testing.T, conn *sql.Conn, name string) bool {
	t.Helper()
	var n int
	if err := conn.QueryRowContext(context.Background(), "SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table' AND name = ?", name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n == 1
}

func TestFreshDatabase(t *testing.T) {
	conn := open(t, filepath.Join(t.TempDir(), "db"))
	res, err := Up(context.Background(), conn, load(t, two), sqlite)
	if err != nil {
		t.Fatalf("Up: %v", err)
	}
	if res.From != 0 || res.To != 2 || !slices.Equal(res.Applied, []string{"0001_init.sql", "0002_more.sql"}) {
		t.Fatalf("Up = %+v, want 0 → 2 applying both", res)
	}
	if version(t, conn) != 2 || !tableExists(t, conn, "a") || !tableExists(t, conn, "b") {
		t.Fatal("schema not at version 2")
	}
}

func TestIdempotentAndIncremental(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	ctx := context.Background()
	if _, err := Up(ctx, open(t, path), load(t, one), sqlite); err != nil {
		t.Fatal(err)
	}
	conn := open(t, path)
	res, err := Up(ctx, conn, load(t, two), sqlite)
	if err != nil || res.From != 1 || res.To != 2 || !slices.Equal(res.Applied, []string{"0002_more.sql"}) {
		t.Fatalf("second Up = %+v, %v; want 1 → 2 applying 0002 only", res, err)
	}
	res, err = Up(ctx, conn, load(t, two), sqlite)
	if err != nil || res.From != 2 || res.To != 2 || len(res.Applied) != 0 {
		t.Fatalf("third Up = %+v, %v; want nothing to do", res, err)
	}
}

func TestTooNew(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	ctx := context.Background()
	if _, err := Up(ctx, open(t, path), load(t, two), sqlite); err != nil {
		t.Fatal(err)
	}
	conn := open(t, path)
	_, err := Up(ctx, conn, load(t, one), sqlite)
	var tooNew *TooNewError
	if !errors.As(err, &tooNew) || tooNew.Current != 2 || tooNew.Supported != 1 {
		t.Fatalf("Up with an older binary = %v, want *TooNewError{2, 1}", err)
	}
	want := "database schema version 2 is newer than this binary supports (1); upgrade the agent binary or use another database"
	if err.Error() != want {
		t.Fatalf("message %q, want %q", err, want)
	}
	if version(t, conn) != 2 {
		t.Fatal("the refused database changed")
	}
	// The connection is usable afterwards (no transaction left open).
	if _, err := conn.ExecContext(ctx, "INSERT INTO b (y) VALUES ('ok')"); err != nil {
		t.Fatalf("write after the refusal: %v", err)
	}
}

func TestFailingMigrationKeepsVersion(t *testing.T) {
	conn := open(t, filepath.Join(t.TempDir(), "db"))
	ctx := context.Background()
	bad := map[string]string{
		"0001_init.sql":   "CREATE TABLE a (x INTEGER);",
		"0002_broken.sql": "CREATE TABLE c (z INTEGER);\nINSERT INTO nowhere VALUES (1);",
	}
	res, err := Up(ctx, conn, load(t, bad), sqlite)
	if err == nil || !strings.Contains(err.Error(), "migration 0002_broken.sql") || !strings.Contains(err.Error(), "nowhere") {
		t.Fatalf("Up with a broken migration = %v, want an error naming it", err)
	}
	if res.From != 0 || res.To != 1 || !slices.Equal(res.Applied, []string{"0001_init.sql"}) {
		t.Fatalf("Up = %+v, want 0 → 1", res)
	}
	if version(t, conn) != 1 || tableExists(t, conn, "c") || !tableExists(t, conn, "a") {
		t.Fatal("the failed migration left changes behind or the good one was lost")
	}
	// Fixed binary: the migration applies.
	fixed := map[string]string{"0001_init.sql": bad["0001_init.sql"], "0002_fixed.sql": "CREATE TABLE c (z INTEGER);"}
	if res, err := Up(ctx, conn, load(t, fixed), sqlite); err != nil || res.To != 2 {
		t.Fatalf("Up after the fix = %+v, %v", res, err)
	}
}

func TestLoadRejectsBadNames(t *testing.T) {
	for name, files := range map[string]fstest.MapFS{
		"no number":      {"x/init.sql": {}},
		"zero":           {"x/0000_init.sql": {}},
		"same version":   {"x/0001_a.sql": {}, "x/1_b.sql": {}},
		"missing folder": {"y/0001_a.sql": {}},
	} {
		if _, err := Load(files, "x"); err == nil {
			t.Errorf("%s: Load succeeded", name)
		}
	}
	ms, err := Load(fstest.MapFS{"x/0010_b.sql": {}, "x/0002_a.sql": {}}, "x")
	if err != nil || len(ms) != 2 || ms[0].Version != 2 || ms[1].Version != 10 {
		t.Fatalf("Load = %+v, %v; want versions 2, 10", ms, err)
	}
}
