// Package migrate applies versioned SQL migrations, embedded in the binary,
// to a database through database/sql.
//
// Migrations are files named NNNN_name.sql in an fs.FS (usually an
// embed.FS of the store package). Each is applied in a transaction of its
// own together with the row that records its version in the table
// schema_migrations(version, applied_at), so a failing migration leaves the
// schema at the previous version. A database whose version is newer than the
// newest migration the binary knows is refused with a *TooNewError.
//
// Why not goose: it would work, but this runner is about a hundred lines
// without a dependency, runs on the store's own connection, and gives the
// exact refusal message the stores report.
//
// The runner is dialect-neutral: it uses no placeholders, and the statement
// that starts a transaction and an optional lock statement are parameters
// (SQLite: "BEGIN IMMEDIATE"; PostgreSQL: "BEGIN" and
// "SELECT pg_advisory_xact_lock(…)").
package migrate

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strconv"
	"time"
)

// Migration is one schema version.
type Migration struct {
	Version int
	Name    string // file name, e.g. "0001_init.sql"
	SQL     string
}

// TooNewError reports a database whose schema is newer than the newest
// migration of this binary.
type TooNewError struct {
	Current   int // version recorded in the database
	Supported int // newest version this binary knows
}

func (e *TooNewError) Error() string {
	return fmt.Sprintf("database schema version %d is newer than this binary supports (%d); upgrade the agent binary or use another database", e.Current, e.Supported)
}

var fileName = regexp.MustCompile(`^([0-9]+)_[A-Za-z0-9_.-]+\.sql$`)

// Load reads the migrations in directory dir of fsys ("." for its root),
// ordered by version. Every .sql file must be named NNNN_name.sql, with a
// positive version that no other file has; other files are ignored.
func Load(fsys fs.FS, dir string) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("migrations: %w", err)
	}
	var out []Migration
	for _, e := range entries {
		if e.IsDir() || path.Ext(e.Name()) != ".sql" {
			continue
		}
		m := fileName.FindStringSubmatch(e.Name())
		if m == nil {
			return nil, fmt.Errorf("migrations: %s is not named NNNN_name.sql", e.Name())
		}
		v, err := strconv.Atoi(m[1])
		if err != nil || v < 1 {
			return nil, fmt.Errorf("migrations: %s: version must be a positive number", e.Name())
		}
		body, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("migrations: %w", err)
		}
		out = append(out, Migration{Version: v, Name: e.Name(), SQL: string(body)})
	}
	slices.SortFunc(out, func(a, b Migration) int { return cmp.Compare(a.Version, b.Version) })
	for i := 1; i < len(out); i++ {
		if out[i].Version == out[i-1].Version {
			return nil, fmt.Errorf("migrations: %s and %s have the same version", out[i-1].Name, out[i].Name)
		}
	}
	return out, nil
}

// Dialect holds what differs between databases.
type Dialect struct {
	// Begin starts a migration transaction ("BEGIN" when empty). SQLite
	// uses "BEGIN IMMEDIATE", so that two processes opening one file take
	// turns instead of failing to upgrade their read locks.
	Begin string
	// Lock, when not empty, runs first in every migration transaction; a
	// server database serialises concurrent migrators with it.
	Lock string
}

// Result says what Up did.
type Result struct {
	From, To int      // schema version before and after
	Applied  []string // names of the migrations applied, in order
}

// Up brings the schema of the database behind conn to the newest of
// migrations (ordered by version, as Load returns them), one transaction
// per migration. It fails with a *TooNewError when the database is newer.
// conn must not be inside a transaction.
func Up(ctx context.Context, conn *sql.Conn, migrations []Migration, d Dialect) (Result, error) {
	begin := cmp.Or(d.Begin, "BEGIN")
	res := Result{From: -1}
	for {
		if _, err := conn.ExecContext(ctx, begin); err != nil {
			return res, fmt.Errorf("starting a migration transaction: %w", err)
		}
		cur, applied, err := step(ctx, conn, migrations, d)
		if res.From < 0 {
			res.From = cur
		}
		res.To = cur
		if err != nil {
			// The error may already have ended the transaction; a failing
			// ROLLBACK then has nothing to report.
			_, _ = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
			return res, err
		}
		if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
			_, _ = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
			if applied == nil {
				return res, fmt.Errorf("reading the schema version: commit: %w", err)
			}
			return res, fmt.Errorf("migration %s: commit: %w", applied.Name, err)
		}
		if applied == nil {
			return res, nil
		}
		res.To = applied.Version
		res.Applied = append(res.Applied, applied.Name)
	}
}

// step runs inside a transaction: it reads the current version and applies
// the next migration due, if any.
func step(ctx context.Context, conn *sql.Conn, migrations []Migration, d Dialect) (cur int, applied *Migration, err error) {
	if d.Lock != "" {
		if _, err := conn.ExecContext(ctx, d.Lock); err != nil {
			return 0, nil, fmt.Errorf("taking the migration lock: %w", err)
		}
	}
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)`); err != nil {
		return 0, nil, fmt.Errorf("creating schema_migrations: %w", err)
	}
	if err := conn.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&cur); err != nil {
		return 0, nil, fmt.Errorf("reading the schema version: %w", err)
	}
	newest := 0
	if len(migrations) > 0 {
		newest = migrations[len(migrations)-1].Version
	}
	if cur > newest {
		return cur, nil, &TooNewError{Current: cur, Supported: newest}
	}
	i := slices.IndexFunc(migrations, func(m Migration) bool { return m.Version > cur })
	if i < 0 {
		return cur, nil, nil
	}
	m := &migrations[i]
	if _, err := conn.ExecContext(ctx, m.SQL); err != nil {
		return cur, nil, fmt.Errorf("migration %s: %w", m.Name, err)
	}
	// No placeholders: their syntax differs between databases, and both
	// values are ours.
	q := fmt.Sprintf(`INSERT INTO schema_migrations (version, applied_at) VALUES (%d, '%s')`, m.Version, time.Now().UTC().Format(time.RFC3339Nano))
	if _, err := conn.ExecContext(ctx, q); err != nil {
		return cur, nil, fmt.Errorf("migration %s: recording version %d: %w", m.Name, m.Version, err)
	}
	return cur, m, nil
}
