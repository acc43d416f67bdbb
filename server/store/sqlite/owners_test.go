package sqlite

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/types/known/timestamppb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
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
