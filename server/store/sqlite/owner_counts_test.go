package sqlite

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// ownerCountsKept reports how many of the schema objects that keep
// owner_counts the database of s holds.
func ownerCountsKept(t *testing.T, s *Store) int {
	t.Helper()
	var n int
	if err := s.rdb.QueryRow(sqlOwnerCountObjects).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestOwnerCountsOnlyWhenNeeded: a store that holds the file's lock keeps
// the per-owner counts' triggers and indexes only with a per-owner cap; a
// shared one keeps them whatever its caps (another process on the file may
// have one); and opening as the next one needs drops or creates them.
func TestOwnerCountsOnlyWhenNeeded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.db")
	caps := WithRetention(store.Retention{MaxInterruptedTasksPerOwner: 5})
	for i, c := range []struct {
		name string
		opts []Option
		want int
	}{
		{"locked, no cap", nil, 0},
		{"locked, a cap", []Option{caps}, ownerCountObjects},
		{"locked, no cap again", nil, 0},
		{"shared, no cap", []Option{WithSharedAccess()}, ownerCountObjects},
		{"shared, a cap", []Option{WithSharedAccess(), caps}, ownerCountObjects},
		{"locked, no cap at last", nil, 0},
	} {
		s, err := Open(t.Context(), path, c.opts...)
		if err != nil {
			t.Fatalf("%s: Open: %v", c.name, err)
		}
		create(t, s, store.Creation{Record: store.Record{Owner: "alice", Task: newTask(fmt.Sprint("t", i), inputReq, 0)}})
		if got := ownerCountsKept(t, s); got != c.want {
			t.Errorf("%s: %d of the owner counts' %d schema objects, want %d", c.name, got, ownerCountObjects, c.want)
		}
		checkCounts(t, s)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOwnerCountsAfterRunningWithoutCaps: a database written with caps,
// then without (tasks created, ended, interrupted, resumed and removed by
// the global cap while nothing counted them per owner), then opened with
// caps again, is counted from its tasks at Open: the counts are exact and
// the next write over a cap removes exactly the owner's oldest.
func TestOwnerCountsAfterRunningWithoutCaps(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "agent.db")
	caps := WithRetention(store.Retention{MaxTerminalTasksPerOwner: 3, MaxInterruptedTasksPerOwner: 2})

	s := openAt(t, path, caps)
	for i, c := range []struct {
		owner string
		state int
	}{{"alice", 0}, {"alice", 1}, {"bob", 0}, {"bob", 1}} {
		task := newTask(fmt.Sprint("a", i), []a2av1.TaskState{completed, inputReq}[c.state], time.Duration(i))
		create(t, s, store.Creation{Record: store.Record{Owner: c.owner, Task: task}})
	}
	checkCounts(t, s)
	s.Close()

	// No per-owner cap: a global one, which removes the two oldest
	// terminal tasks (a0, a2) without the triggers.
	s = openAt(t, path, WithRetention(store.Retention{MaxTerminalTasks: 4}))
	if n := ownerCountsKept(t, s); n != 0 {
		t.Fatalf("%d of the owner counts' schema objects without a per-owner cap, want none", n)
	}
	for i := range 4 {
		create(t, s, store.Creation{Record: store.Record{Owner: "alice", Task: newTask(fmt.Sprint("b", i), working, time.Duration(10+i))}})
	}
	update(t, s, store.Update{Task: newTask("b0", completed, 20), Expect: 1})
	update(t, s, store.Update{Task: newTask("b1", inputReq, 21), Expect: 1})
	update(t, s, store.Update{Task: newTask("b2", inputReq, 22), Expect: 1})
	update(t, s, store.Update{Task: newTask("a1", working, 23), Expect: 1}) // resumed
	update(t, s, store.Update{Task: newTask("b3", completed, 24), Expect: 1})
	create(t, s, store.Creation{Record: store.Record{Owner: "bob", Task: newTask("b4", completed, 25)}})
	create(t, s, store.Creation{Record: store.Record{Owner: "alice", Task: newTask("b5", completed, 26)}})
	checkCounts(t, s) // owner_counts empty
	s.Close()

	// alice: completed b0, b3, b5 (a0 removed), waiting b1, b2;
	// bob: completed b4 (a2 removed), waiting a3.
	s = openAt(t, path, caps)
	if n := ownerCountsKept(t, s); n != ownerCountObjects {
		t.Fatalf("%d of the owner counts' %d schema objects with a per-owner cap", n, ownerCountObjects)
	}
	checkCounts(t, s)
	create(t, s, store.Creation{Record: store.Record{Owner: "alice", Task: newTask("c0", completed, 30)}})
	create(t, s, store.Creation{Record: store.Record{Owner: "alice", Task: newTask("c1", inputReq, 31)}})
	for id, want := range map[string]bool{"a0": false, "a2": false, "b0": false, "b3": true, "b5": true, "c0": true,
		"b1": false, "b2": true, "c1": true, "a1": true, "b4": true, "a3": true} {
		if _, err := s.Task(ctx, "", id); want && err != nil || !want && !errors.Is(err, store.ErrNotFound) {
			t.Errorf("task %s: %v; want kept = %v", id, err, want)
		}
	}
	checkCounts(t, s)
	checkCache(t, s)
}
