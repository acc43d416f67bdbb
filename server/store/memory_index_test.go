package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// TestMemoryListIndexMatchesSortedScan drives the in-memory store's listing
// index through creations, status updates that move tasks (including to
// equal timestamps) and retention removals, and checks every page walk
// with every filter against a sort of all the live tasks — the order and
// totals ListTasks had before the index.
func TestMemoryListIndexMatchesSortedScan(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1_700_000_000, 0)
	m := store.NewMemory(store.WithRetention(store.Retention{MaxTerminalTasks: 15}))
	rng := rand.New(rand.NewPCG(1, 2))
	type live struct {
		owner string
		task  *a2av1.Task
		ver   int64
	}
	tasks := map[string]*live{}
	owners := []string{"", "alice", "bob"}
	stamp := func() *timestamppb.Timestamp {
		return timestamppb.New(now.Add(time.Duration(rng.IntN(40)) * time.Second))
	}
	for i := range 300 {
		id := fmt.Sprintf("t%03d", rng.IntN(400))
		if l, ok := tasks[id]; ok && !store.IsTerminal(l.task.GetStatus().GetState()) {
			next := &a2av1.Task{Id: id, ContextId: l.task.GetContextId(), Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_WORKING, Timestamp: stamp()}}
			if rng.IntN(3) == 0 {
				next.Status.State = a2av1.TaskState_TASK_STATE_COMPLETED
			}
			v, err := m.UpdateTask(ctx, store.Update{Task: next, Expect: l.ver})
			if err != nil {
				t.Fatalf("update %d: %v", i, err)
			}
			l.task, l.ver = next, v
			continue
		} else if ok {
			continue
		}
		owner := owners[rng.IntN(len(owners))]
		task := &a2av1.Task{Id: id, ContextId: fmt.Sprint("c", rng.IntN(3)), Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_SUBMITTED, Timestamp: stamp()}}
		rec, _, err := m.CreateTask(ctx, store.Creation{Record: store.Record{Owner: owner, Task: task}})
		if err != nil {
			t.Fatalf("create %d: %v", i, err)
		}
		tasks[id] = &live{owner, task, rec.Version}
	}
	// Which tasks retention kept is the store's business: take them from
	// the store, then check the listing against them.
	for id := range tasks {
		if _, err := m.Task(ctx, "", id); err != nil {
			delete(tasks, id)
		}
	}
	queries := []store.Query{}
	for _, o := range owners {
		queries = append(queries,
			store.Query{Owner: o},
			store.Query{Owner: o, ContextID: "c1"},
			store.Query{Owner: o, State: a2av1.TaskState_TASK_STATE_WORKING},
			store.Query{Owner: o, UpdatedAfter: now.Add(20 * time.Second)},
			store.Query{Owner: o, ContextID: "c2", UpdatedAfter: now.Add(10 * time.Second)})
	}
	for _, q := range queries {
		var want []store.Cursor
		for _, l := range tasks {
			c := store.CursorOf(l.task)
			if l.owner != q.Owner || q.ContextID != "" && l.task.GetContextId() != q.ContextID ||
				q.State != 0 && l.task.GetStatus().GetState() != q.State || !q.UpdatedAfter.IsZero() && c.Time.Before(q.UpdatedAfter) {
				continue
			}
			want = append(want, c)
		}
		slices.SortFunc(want, store.Cursor.Compare)
		for _, limit := range []int{1, 7, 1000} {
			q := q
			q.Limit = limit
			var got []store.Cursor
			for {
				page, err := m.ListTasks(ctx, "", q)
				if err != nil {
					t.Fatal(err)
				}
				if page.Total != len(want) {
					t.Fatalf("%+v: total %d, want %d", q, page.Total, len(want))
				}
				for _, r := range page.Records {
					got = append(got, store.CursorOf(r.Task))
				}
				if !page.More {
					break
				}
				c := store.CursorOf(page.Records[len(page.Records)-1].Task)
				q.After = &c
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%+v: listed %v\nwant %v", q, got, want)
			}
		}
	}
}

// TestMemoryListWhileTasksMove lists by context and by state while other
// goroutines move tasks between contexts and states (run it with -race):
// the walk holds the store's lock for reading only, and every record a
// page returns must be in the index of the filters it was listed by, in
// listing order — a write that published a record before moving it in the
// indexes would show a task of another context or state.
func TestMemoryListWhileTasksMove(t *testing.T) {
	ctx := context.Background()
	m := store.NewMemory()
	at := time.Unix(1_700_000_000, 0)
	states := []a2av1.TaskState{a2av1.TaskState_TASK_STATE_WORKING, a2av1.TaskState_TASK_STATE_INPUT_REQUIRED, a2av1.TaskState_TASK_STATE_SUBMITTED}
	const tasks, writers, moves = 60, 3, 400
	for i := range tasks {
		task := &a2av1.Task{Id: fmt.Sprintf("t%02d", i), ContextId: fmt.Sprint("c", i%3),
			Status: &a2av1.TaskStatus{State: states[i%3], Timestamp: timestamppb.New(at)}}
		if _, _, err := m.CreateTask(ctx, store.Creation{Record: store.Record{Task: task}}); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 9))
			for i := range moves {
				id := fmt.Sprintf("t%02d", rng.IntN(tasks/writers)*writers+w) // each writer its own tasks
				rec, err := m.Task(ctx, "", id)
				if err != nil {
					t.Error(err)
					return
				}
				next := &a2av1.Task{Id: id, ContextId: fmt.Sprint("c", rng.IntN(3)),
					Status: &a2av1.TaskStatus{State: states[rng.IntN(3)], Timestamp: timestamppb.New(at.Add(time.Duration(rng.IntN(5)) * time.Second))}}
				if _, err := m.UpdateTask(ctx, store.Update{Task: next, Expect: rec.Version}); err != nil {
					t.Errorf("move %d: %v", i, err)
					return
				}
			}
		})
	}
	go func() { wg.Wait(); close(done) }()
	for lists := 0; ; lists++ {
		select {
		case <-done:
			if lists == 0 {
				t.Fatal("no listing ran")
			}
			return
		default:
		}
		q := store.Query{ContextID: fmt.Sprint("c", lists%3), Limit: 7}
		if lists%2 == 0 {
			q.State = states[lists%3]
		}
		page, err := m.ListTasks(ctx, "", q)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Records) > q.Limit || page.Total < len(page.Records) || page.More != (page.Total > len(page.Records)) {
			t.Fatalf("%+v: %d records, total %d, more %v", q, len(page.Records), page.Total, page.More)
		}
		for i, rec := range page.Records {
			task := rec.Task
			if task.GetContextId() != q.ContextID || q.State != 0 && task.GetStatus().GetState() != q.State {
				t.Fatalf("%+v listed %s in %s, %s", q, task.GetId(), task.GetContextId(), task.GetStatus().GetState())
			}
			if i > 0 && store.CursorOf(page.Records[i-1].Task).Compare(store.CursorOf(task)) >= 0 {
				t.Fatalf("%+v: %s before %s", q, page.Records[i-1].Task.GetId(), task.GetId())
			}
		}
	}
}
