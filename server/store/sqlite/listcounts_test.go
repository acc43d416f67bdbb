package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/a2agen/a2agen/internal/migrate"
	"github.com/a2agen/a2agen/server/store"
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
			task.GetId(), owner, task.GetContextId(), int64(working), nanos(base), blob); err != nil {
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
