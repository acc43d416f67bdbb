package postgres

import (
	"context"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
	"github.com/a2agen/a2agen/server/store/internal/sqlrecord"
)

// TestGenerationMigration: a schema written before tasks had a generation
// (migration task_generation and those after it undone: their objects
// dropped, their rows gone from schema_migrations) holds a running task; opened again, the migration
// runs, the task is at generation 1 and counts on with the events of
// later writes, seen alike by another replica.
func TestGenerationMigration(t *testing.T) {
	ctx := context.Background()
	url := testURL(t)
	schema := testSchema(t, url)
	s := openSchema(t, url, schema)
	task := newTask("old", working, 0)
	blob, err := proto.Marshal(task)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`ALTER TABLE tasks DROP COLUMN generation`,
		`DROP TABLE send_keys`,
		`DROP INDEX task_events_by_generation`,
		`ALTER TABLE task_events DROP COLUMN generation`,
		`DROP TABLE owner_counts`,
		`DROP FUNCTION a2agen_owner_count() CASCADE`,
		`DROP INDEX tasks_owner_ended, tasks_owner_waiting`,
		`DELETE FROM schema_migrations WHERE version >= 5`,
	} {
		if _, err := s.pool.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := s.pool.Exec(ctx, `INSERT INTO tasks (tenant, id, owner, context_id, state, status_time, version, snapshot) VALUES ('', 'old', '', $1, $2, $3, 7, $4)`,
		task.GetContextId(), int16(working), sqlrecord.Nanos(base), blob); err != nil {
		t.Fatal(err)
	}
	s.Close()

	a, b := openSchema(t, url, schema), openSchema(t, url, schema)
	rec, err := a.Task(ctx, "", "old")
	if err != nil || rec.Generation != 1 || rec.Version != 7 || rec.Task.GetGeneration() != 1 {
		t.Fatalf("the task written before generations: %+v, %v; want generation 1 (record and snapshot) at version 7", rec, err)
	}
	t2 := newTask("old", working, time.Second)
	update(t, a, store.Update{Task: t2, Expect: rec.Version, Events: []*a2av1.StreamResponse{statusEvent(t2), statusEvent(t2)}})
	if rec, err = b.Task(ctx, "", "old"); err != nil || rec.Generation != 3 {
		t.Fatalf("after a write of two events, read by another replica: %+v, %v; want generation 3", rec, err)
	}
}
