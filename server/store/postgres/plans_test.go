package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/pgtest"
	"github.com/a2agen/a2agen/server/store"
	"github.com/a2agen/a2agen/server/store/internal/sqlrecord"
)

// planTasks is how many tasks TestListUsesIndexes stores: half in the
// default tenant without owners (a single-tenant agent), half spread over
// 20 tenants of 5 owners each.
const planTasks = 200_000

// TestListUsesIndexes stores 200k tasks and checks, with EXPLAIN, that
// every listing shape (filters, TTL, cursor), both for the custom plan of
// its arguments and for the generic plan of the prepared statement, reads
// the tasks through an index and never scans the table, and that a listing
// by context reads only tasks_by_context (issue 26).
func TestListUsesIndexes(t *testing.T) {
	t.Parallel() // shares nothing with the other tests
	if testing.Short() {
		t.Skip("stores 200k tasks")
	}
	// A database of its own: VACUUM below must see no older transaction
	// (other tests' are in the shared database), or it cannot mark the
	// table's pages visible to all and the count cannot use an index alone.
	url := pgtest.Database(t, testURL(t))
	s := openSchema(t, url, testSchema(t, url))
	ctx := context.Background()
	start := time.Now()
	// The listing's plans are what is checked, not the per-owner counts
	// (owners_test.go): with their triggers on, the COPY fires 200,000
	// upserts of owner_counts (five times its time), and VACUUM below then
	// marked no page visible to all (relallvisible 0 of 3,586, every run on
	// a quiet machine; most likely the snapshot of the autovacuum that the
	// churn of owner_counts starts), so the count scanned the table.
	if _, err := s.pool.Exec(ctx, "ALTER TABLE tasks DISABLE TRIGGER USER"); err != nil {
		t.Fatal(err)
	}
	fillTasks(t, s, planTasks)
	// The count reads an index alone only where VACUUM marked the table's
	// pages visible to every transaction. A plain VACUUM leaves pages it
	// cannot lock at once (a loaded machine) and rows whose commit is not
	// on disk yet (the test's sessions commit asynchronously, pgtest.URL);
	// so one synchronous commit flushes the COPY's, and FREEZE makes VACUUM
	// wait for every page.
	if err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, "SET LOCAL synchronous_commit = on; SELECT txid_current()")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, "VACUUM (FREEZE, ANALYZE) tasks"); err != nil {
		t.Fatal(err)
	}
	t.Logf("stored %d tasks in %v", planTasks, time.Since(start).Round(time.Millisecond))

	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	for _, who := range []struct{ tenant, owner, context string }{{"", "", "c0042"}, {"t07", "o2", "c0042"}} {
		for _, generic := range []bool{false, true} {
			mode := "auto"
			if generic {
				mode = "force_generic_plan"
			}
			if _, err := conn.Exec(ctx, "SET plan_cache_mode = "+mode); err != nil {
				t.Fatal(err)
			}
			for shape := range sqlrecord.ByCursor << 1 {
				q := store.Query{Owner: who.owner, Limit: 50}
				if shape&sqlrecord.ByContext != 0 {
					q.ContextID = who.context
				}
				if shape&sqlrecord.ByState != 0 {
					q.State = working
				}
				if shape&sqlrecord.ByUpdatedAfter != 0 {
					q.UpdatedAfter = base.Add(planTasks / 2 * time.Second)
				}
				if shape&sqlrecord.ByCursor != 0 {
					q.After = &store.Cursor{Time: base.Add(planTasks / 3 * time.Second), ID: "x"}
				}
				var cut sqlrecord.Cutoffs // live since a quarter of the tasks, with a TTL
				if shape&sqlrecord.ByTTL != 0 {
					cut.TTL = time.Hour
				}
				l := cut.List(who.tenant, q, sqlrecord.Nanos(base.Add(planTasks/4*time.Second))+int64(time.Hour))
				gotShape, args := l.Shape, listArgs(l)
				if gotShape != shape {
					t.Fatalf("shape %05b built as %05b", shape, gotShape)
				}
				var raw []byte
				if err := conn.QueryRow(ctx, "EXPLAIN (FORMAT JSON) "+listSQL(shape), args...).Scan(&raw); err != nil {
					t.Fatalf("EXPLAIN shape %05b: %v", shape, err)
				}
				var plans []struct{ Plan planNode }
				if err := json.Unmarshal(raw, &plans); err != nil {
					t.Fatal(err)
				}
				var indexes, scans []string
				plans[0].Plan.walk(func(n *planNode) {
					if n.Relation == "tasks" && n.Type == "Seq Scan" {
						scans = append(scans, n.Type)
					}
					if strings.HasPrefix(n.Index, "tasks_") {
						indexes = append(indexes, n.Type+" on "+n.Index)
					}
				})
				where := fmt.Sprintf("tenant %q owner %q, shape %05b (%s plan)", who.tenant, who.owner, shape, mode)
				if len(scans) > 0 || len(indexes) < 2 {
					t.Errorf("%s: table scans %v, index scans %v (want one for the count and one for the page)\n%s", where, scans, indexes, raw)
					continue
				}
				// A listing by context (all an anonymous caller can make)
				// reads the context's entries only, never the owner's.
				if shape&sqlrecord.ByContext != 0 && slices.ContainsFunc(indexes, func(ix string) bool { return !strings.HasSuffix(ix, " on tasks_by_context") }) {
					t.Errorf("%s: index scans %v, want only tasks_by_context\n%s", where, indexes, raw)
				}
				if testing.Verbose() && !generic {
					t.Logf("%s: %s", where, strings.Join(indexes, ", "))
				}
			}
		}
		// And the listing itself, page after page, on the store.
		page, err := s.ListTasks(ctx, who.tenant, store.Query{Owner: who.owner, State: working, Limit: 50})
		if err != nil || len(page.Records) != 50 || !page.More {
			t.Fatalf("ListTasks = %d records, more %v, %v", len(page.Records), page.More, err)
		}
		began := time.Now()
		c := store.CursorOf(page.Records[49].Task)
		next, err := s.ListTasks(ctx, who.tenant, store.Query{Owner: who.owner, State: working, Limit: 50, After: &c})
		if err != nil || len(next.Records) != 50 || next.Total != page.Total {
			t.Fatalf("second page = %d records, total %d (first %d), %v", len(next.Records), next.Total, page.Total, err)
		}
		t.Logf("tenant %q owner %q: second page of WORKING tasks (of %d) in %v", who.tenant, who.owner, page.Total, time.Since(began))
	}
}

type planNode struct {
	Type     string     `json:"Node Type"`
	Relation string     `json:"Relation Name"`
	Index    string     `json:"Index Name"`
	Plans    []planNode `json:"Plans"`
}

func (n *planNode) walk(f func(*planNode)) {
	f(n)
	for i := range n.Plans {
		n.Plans[i].walk(f)
	}
}

// fillTasks stores n tasks with COPY: half in the default tenant without
// owner, the rest over 20 tenants × 5 owners; 100 contexts per owner;
// states mixed (a fifth terminal); status times one second apart.
func fillTasks(t testing.TB, s *Store, n int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	states := []a2av1.TaskState{submitted, working, working, inputReq, completed}
	i := 0
	src := pgx.CopyFromFunc(func() ([]any, error) {
		if i == n {
			return nil, nil
		}
		i++
		tenant, owner := "", ""
		if i%2 == 0 {
			tenant, owner = fmt.Sprintf("t%02d", rng.IntN(20)), fmt.Sprintf("o%d", rng.IntN(5))
		}
		state := states[rng.IntN(len(states))]
		at := time.Duration(rng.IntN(n)) * time.Second
		task := newTask(fmt.Sprintf("task-%07d", i), state, at)
		task.ContextId = fmt.Sprintf("c%04d", rng.IntN(100))
		blob, err := proto.Marshal(task)
		if err != nil {
			return nil, err
		}
		var ended *int64
		if store.IsTerminal(state) {
			e := sqlrecord.Nanos(base.Add(at))
			ended = &e
		}
		return []any{tenant, task.GetId(), owner, task.GetContextId(), int16(state), sqlrecord.Nanos(base.Add(at)), int64(1), blob, ended}, nil
	})
	got, err := s.pool.CopyFrom(context.Background(), pgx.Identifier{"tasks"},
		[]string{"tenant", "id", "owner", "context_id", "state", "status_time", "version", "snapshot", "ended_at"}, src)
	if err != nil || got != int64(n) {
		t.Fatalf("COPY: %d rows, %v", got, err)
	}
}
