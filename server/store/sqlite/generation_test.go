package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/migrate"
	"github.com/a2agen/a2agen/server/store"
	"github.com/a2agen/a2agen/server/store/internal/sqlrecord"
)

// TestGenerationMigration: a database written before tasks had a
// generation (migration task_generation) holds a running task; opened
// with this binary, the task is at generation 1, counts on from there
// with the events of later writes, and keeps its count across a restart.
func TestGenerationMigration(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "agent.db")
	all, err := migrate.Load(migrationFiles, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(all, func(m migrate.Migration) bool { return strings.HasSuffix(m.Name, "_task_generation.sql") })
	if i < 1 {
		t.Fatalf("no task_generation migration after others in %v", all)
	}
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := migrate.Up(ctx, conn, all[:i], migrate.Dialect{Begin: "BEGIN IMMEDIATE"}); err != nil {
		t.Fatal(err)
	}
	task := newTask("old", working, 0)
	blob, err := proto.Marshal(task)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, `INSERT INTO tasks (tenant, id, owner, context_id, state, status_time, version, snapshot) VALUES ('', 'old', '', ?, ?, ?, 7, ?)`,
		task.GetContextId(), int64(working), sqlrecord.Nanos(base), blob); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	db.Close()

	s := openAt(t, path)
	rec, err := s.Task(ctx, "", "old")
	if err != nil || rec.Generation != 1 || rec.Version != 7 || rec.Task.GetGeneration() != 1 {
		t.Fatalf("the task written before generations: %+v, %v; want generation 1 (record and snapshot) at version 7", rec, err)
	}
	t2 := newTask("old", working, time.Second)
	update(t, s, store.Update{Task: t2, Expect: rec.Version, Events: []*a2av1.StreamResponse{statusEvent(t2), statusEvent(t2)}})
	if rec, err = s.Task(ctx, "", "old"); err != nil || rec.Generation != 3 {
		t.Fatalf("after a write of two events: %+v, %v; want generation 3", rec, err)
	}
	s.Close()
	s = openAt(t, path)
	if rec, err = s.Task(ctx, "", "old"); err != nil || rec.Generation != 3 {
		t.Fatalf("after a restart: %+v, %v; want generation 3", rec, err)
	}
}
