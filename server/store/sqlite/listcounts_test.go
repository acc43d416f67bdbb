package sqlite

import (
	"context"
	"database/sql"
	"fmt"
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

// TestListCountsMigration: a database written before the listing counts
// (migration list_indexes) holds tasks; opening it with this binary counts
// them, and the listings' totals by owner and by context are exact.
func TestListCountsMigration(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "agent.db")
	all, err := migrate.Load(migrationFiles, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(all, func(m migrate.Migration) bool { return strings.HasSuffix(m.Name, "_list_indexes.sql") })
	if i < 1 {
		t.Fatalf("no list_indexes migration after others in %v", all)
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
	for n := range 30 {
		task := newTask(fmt.Sprintf("t%02d", n), working, 0)
		task.ContextId = fmt.Sprint("c", n%4)
		blob, err := proto.Marshal(task)
		if err != nil {
			t.Fatal(err)
		}
		owner := []string{"", "alice", "bob"}[n%3]
		if _, err := conn.ExecContext(ctx, `INSERT INTO tasks (tenant, id, owner, context_id, state, status_time, version, snapshot) VALUES ('', ?, ?, ?, ?, ?, 1, ?)`,
			task.GetId(), owner, task.GetContextId(), int64(working), sqlrecord.Nanos(base), blob); err != nil {
			t.Fatal(err)
		}
	}
	conn.Close()
	db.Close()

	s := openAt(t, path)
	checkCounts(t, s)
	for _, c := range []struct {
		q     store.Query
		total int
	}{
		{store.Query{Limit: 5}, 10},
		{store.Query{Owner: "alice", Limit: 5}, 10},
		{store.Query{ContextID: "c1", Limit: 5}, 2}, // n%3 == 0 and n%4 == 1: 9 and 21
		{store.Query{ContextID: "none", Limit: 5}, 0},
	} {
		page, err := s.ListTasks(ctx, "", c.q)
		if err != nil || page.Total != c.total {
			t.Errorf("ListTasks(%+v): total %d, %v; want %d", c.q, page.Total, err, c.total)
		}
	}
}

// TestListCountsBeforeTheSweep: tasks past their TTL that the sweep has not
// removed yet (the writer is held up) are left out of the counts of every
// listing shape — by owner and by context from the counts tables minus the
// expired tasks, by state from the index — exactly as from the pages.
func TestListCountsBeforeTheSweep(t *testing.T) {
	ctx := context.Background()
	clock := &testClock{now: base}
	s := openTemp(t, WithClock(clock.Now), WithRetention(store.Retention{TerminalTaskTTL: time.Hour, InterruptedTaskTTL: time.Hour}))
	for i, st := range []a2av1.TaskState{working, working, completed, completed, completed, inputReq, inputReq} {
		task := newTask(fmt.Sprintf("t%d", i), st, time.Duration(i)*time.Second)
		task.ContextId = "c"
		create(t, s, store.Creation{Record: store.Record{Task: task}})
	}
	clock.Advance(2 * time.Hour)
	release := blockWriter(t, s) // no sweep from here on
	defer release()
	for _, q := range []store.Query{
		{Limit: 10}, {ContextID: "c", Limit: 10}, {State: working, Limit: 10}, {ContextID: "c", State: working, Limit: 10},
		{UpdatedAfter: base, Limit: 10}, {ContextID: "c", Limit: 1},
	} {
		page, err := s.ListTasks(ctx, "", q)
		if err != nil {
			t.Fatal(err)
		}
		if page.Total != 2 || len(page.Records) != min(q.Limit, 2) {
			t.Errorf("ListTasks(%+v) past the TTLs, before the sweep: %d records, total %d; want the 2 working tasks", q, len(page.Records), page.Total)
		}
	}
	var stored int
	if err := s.rdb.QueryRow(`SELECT COUNT(*) FROM tasks`).Scan(&stored); err != nil || stored != 7 {
		t.Fatalf("%d tasks stored, %v; want all 7 (not swept yet)", stored, err)
	}
}
