package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/migrate"
	"github.com/a2agen/a2agen/server/store"
	"github.com/a2agen/a2agen/server/store/internal/sqlrecord"
)

// TestCapAmongManySmallOwners: while no owner holds many terminal tasks
// (at most 2 × ownerSlack), the cap removes the oldest of all, without
// counting owners per removal: 300 owners with one task each under a cap
// of 100 keep the 100 newest.
func TestCapAmongManySmallOwners(t *testing.T) {
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "agent.db"), WithRetention(store.Retention{MaxTerminalTasks: 100}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	for i := range 300 {
		task := &a2av1.Task{Id: fmt.Sprint("t", i), ContextId: "c",
			Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_COMPLETED, Timestamp: timestamppb.Now()}}
		if _, _, err := s.CreateTask(t.Context(), store.Creation{Record: store.Record{Owner: fmt.Sprint("owner-", i), Task: task}}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 300 {
		_, err := s.Task(t.Context(), "", fmt.Sprint("t", i))
		if i < 200 && !errors.Is(err, store.ErrNotFound) || i >= 200 && err != nil {
			t.Fatalf("task t%d: %v; want kept = %v", i, err, i >= 200)
		}
	}
	checkCache(t, s)
}

// TestOwnerCountsMigration: a database written before the per-owner counts
// (migration owner_counts) holds terminal, interrupted and running tasks;
// opening it counts them per owner, and the caps then hold over the tasks
// stored before: one more finished task of alice, over a cap of two,
// removes her two oldest and nobody else's.
func TestOwnerCountsMigration(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "agent.db")
	all, err := migrate.Load(migrationFiles, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(all, func(m migrate.Migration) bool { return strings.HasSuffix(m.Name, "_owner_counts.sql") })
	if i < 1 {
		t.Fatalf("no owner_counts migration after others in %v", all)
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
	for n := range 12 {
		state := []a2av1.TaskState{completed, inputReq, working}[n%3]
		task := newTask(fmt.Sprintf("t%02d", n), state, time.Duration(n))
		blob, err := proto.Marshal(task)
		if err != nil {
			t.Fatal(err)
		}
		var ended any
		if state == completed {
			ended = sqlrecord.Nanos(base) + int64(n)
		}
		owner := []string{"alice", "alice", "alice", "bob"}[n%4]
		if _, err := conn.ExecContext(ctx, `INSERT INTO tasks (tenant, id, owner, context_id, state, status_time, version, snapshot, ended_at) VALUES ('', ?, ?, 'c', ?, ?, 1, ?, ?)`,
			task.GetId(), owner, int64(state), sqlrecord.Nanos(base)+int64(n), blob, ended); err != nil {
			t.Fatal(err)
		}
	}
	conn.Close()
	db.Close()

	// alice: completed t00, t06, t09 (t03 is bob's), waiting t01, t10;
	// bob: completed t03, waiting t07.
	s := openAt(t, path, WithRetention(store.Retention{MaxTerminalTasksPerOwner: 2}))
	checkCounts(t, s)
	create(t, s, store.Creation{Record: store.Record{Owner: "alice", Task: newTask("new", completed, time.Hour)}})
	for id, want := range map[string]bool{"t00": false, "t06": false, "t09": true, "new": true, "t01": true, "t10": true, "t03": true, "t07": true} {
		if _, err := s.Task(ctx, "", id); want && err != nil || !want && !errors.Is(err, store.ErrNotFound) {
			t.Errorf("task %s: %v; want kept = %v", id, err, want)
		}
	}
	checkCounts(t, s)
	checkCache(t, s)
}
