package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// OwnerCaps are the retention caps RunOwnerRetention gives a store (0: no
// cap).
type OwnerCaps struct {
	// MaxTerminal: terminal tasks in all (Retention.MaxTerminalTasks).
	MaxTerminal int
	// MaxTerminalPerOwner: terminal tasks of one owner.
	MaxTerminalPerOwner int
	// MaxInterruptedPerOwner: INPUT_REQUIRED and AUTH_REQUIRED tasks of
	// one owner.
	MaxInterruptedPerOwner int
	// MaxBytesPerOwner: the protobuf sizes of one owner's terminal and
	// interrupted tasks together.
	MaxBytesPerOwner int64
}

// FloodCap is the MaxTerminal of RunOwnerRetention's flood: the default of
// host.Main and examples/echo.
const FloodCap = 10_000

// RunOwnerRetention checks that the cap on the terminal tasks a store
// keeps spares the owners (Record.Owner; the empty owner is every anonymous
// caller together) that did not fill it: over MaxTerminal, the owner
// holding the most terminal tasks loses its oldest, so FloodCap+1 anonymous
// tasks evict no task of two authenticated owners (before, one global
// queue: they evicted every one of them). newStore returns an empty store
// with caps.MaxTerminal set (the other caps are zero). A store that has
// removed a task answers ErrNotFound for it.
func RunOwnerRetention(t *testing.T, newStore func(t *testing.T, caps OwnerCaps) store.Store) {
	t.Run("flood of one owner", func(t *testing.T) {
		s := newStore(t, OwnerCaps{MaxTerminal: FloodCap})
		for _, owner := range []string{"alice", "bob"} {
			for i := range 3 {
				task := newTask(fmt.Sprintf("%s-%d", owner, i), "c", submitted, time.Duration(i))
				mustCreate(t, s, "", owner, task)
				mustUpdate(t, s, "", next(task, completed, time.Duration(i)+time.Second), 1)
			}
		}
		for i := range FloodCap + 1 {
			mustCreate(t, s, "", "", newTask(fmt.Sprintf("anon-%d", i), fmt.Sprintf("ctx-%d", i), completed, time.Minute))
		}
		for _, owner := range []string{"alice", "bob"} {
			for i := range 3 {
				present(t, s, fmt.Sprintf("%s-%d", owner, i))
			}
		}
		// 6 authenticated tasks and FloodCap-6 anonymous ones remain: the
		// anonymous tasks that ended first went.
		for i := range 7 {
			absent(t, s, fmt.Sprintf("anon-%d", i))
		}
		present(t, s, "anon-7")
		present(t, s, fmt.Sprintf("anon-%d", FloodCap))
		// Then the largest owner is whoever holds the most.
		for i := range 3 {
			mustCreate(t, s, "", "alice", newTask(fmt.Sprintf("alice-more-%d", i), "c", completed, time.Hour))
		}
		absent(t, s, "anon-9")
		present(t, s, "alice-0")
	})
}

// RunOwnerCaps checks the caps of one owner (Record.Owner, across tenants;
// the empty owner is every anonymous caller together): over
// MaxTerminalPerOwner, the owner loses its own oldest terminal task; over
// MaxInterruptedPerOwner, the task it left waiting longest ago (a task
// resumed in time no longer counts). newStore returns an empty store with
// the caps given.
func RunOwnerCaps(t *testing.T, newStore func(t *testing.T, caps OwnerCaps) store.Store) {
	t.Run("per owner", func(t *testing.T) {
		s := newStore(t, OwnerCaps{MaxTerminalPerOwner: 2})
		for i := range 3 {
			mustCreate(t, s, "", "alice", newTask(fmt.Sprintf("alice-%d", i), "c", completed, time.Duration(i)))
		}
		for i := range 2 {
			mustCreate(t, s, "t2", "bob", newTask(fmt.Sprintf("bob-%d", i), "c", completed, time.Duration(i)))
		}
		mustCreate(t, s, "", "", newTask("anon", "c", completed, 0))
		absent(t, s, "alice-0")
		present(t, s, "alice-1")
		present(t, s, "alice-2")
		presentIn(t, s, "t2", "bob-0")
		presentIn(t, s, "t2", "bob-1")
		present(t, s, "anon")
		// One owner across tenants.
		mustCreate(t, s, "t3", "alice", newTask("alice-3", "c", completed, time.Hour))
		absent(t, s, "alice-1")
		present(t, s, "alice-2")
	})
	t.Run("interrupted per owner", func(t *testing.T) {
		s := newStore(t, OwnerCaps{MaxInterruptedPerOwner: 2})
		mustCreate(t, s, "", "alice", newTask("alice-wait", "c", inputReq, 0))
		for i := range 3 {
			mustCreate(t, s, "", "", newTask(fmt.Sprintf("anon-wait-%d", i), "c", inputReq, time.Duration(i)))
		}
		absent(t, s, "anon-wait-0")
		present(t, s, "anon-wait-1")
		present(t, s, "anon-wait-2")
		present(t, s, "alice-wait")
		// A resumed task no longer counts; interrupted again, it counts
		// as the newest.
		resumed := newTask("anon-wait-1", "c", inputReq, time.Duration(1))
		mustUpdate(t, s, "", next(resumed, working, time.Minute), 1)
		mustCreate(t, s, "", "", newTask("anon-wait-3", "c", inputReq, time.Minute))
		present(t, s, "anon-wait-1")
		present(t, s, "anon-wait-2")
		mustUpdate(t, s, "", next(next(resumed, working, time.Minute), inputReq, 2*time.Minute), 2)
		absent(t, s, "anon-wait-2")
		present(t, s, "anon-wait-1")
		present(t, s, "anon-wait-3")
		// Running and finished tasks do not count.
		mustCreate(t, s, "", "", newTask("anon-run", "c", working, time.Hour))
		mustCreate(t, s, "", "", newTask("anon-done", "c", completed, time.Hour))
		present(t, s, "anon-wait-1")
		present(t, s, "anon-wait-3")
	})
}

// RunOwnerBytes checks the cap on the bytes of one owner's terminal and
// interrupted tasks (MaxBytesPerOwner): over it, the owner's oldest
// terminal task goes, then the one it left waiting longest ago; the task
// that just ended or was interrupted stays, however large, and other
// owners keep theirs. newStore returns an empty store with the caps given.
func RunOwnerBytes(t *testing.T, newStore func(t *testing.T, caps OwnerCaps) store.Store) {
	sized := func(id string, state a2av1.TaskState, n int) *a2av1.Task {
		task := newTask(id, "c", state, 0)
		task.History = []*a2av1.Message{{MessageId: "m", Role: a2av1.Role_ROLE_USER,
			Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: strings.Repeat("x", n)}}}}}
		return task
	}
	size := int64(proto.Size(sized("anon-0", completed, 1000)))
	s := newStore(t, OwnerCaps{MaxBytesPerOwner: 3*size - 1})
	mustCreate(t, s, "", "alice", sized("alice-0", completed, 1000))
	mustCreate(t, s, "", "alice", sized("alice-1", completed, 1000))
	for i := range 4 {
		mustCreate(t, s, "", "", sized(fmt.Sprintf("anon-%d", i), completed, 1000))
	}
	absent(t, s, "anon-0")
	absent(t, s, "anon-1")
	present(t, s, "anon-2")
	present(t, s, "anon-3")
	present(t, s, "alice-0")
	present(t, s, "alice-1")
	// Interrupted tasks count too; terminal ones go first.
	mustCreate(t, s, "", "", sized("anon-wait-0", inputReq, 1000))
	absent(t, s, "anon-2")
	mustCreate(t, s, "", "", sized("anon-wait-1", inputReq, 1000))
	absent(t, s, "anon-3")
	present(t, s, "anon-wait-0")
	present(t, s, "anon-wait-1")
	// A task larger than the cap is kept, alone.
	mustCreate(t, s, "", "", sized("anon-big", completed, 5000))
	present(t, s, "anon-big")
	absent(t, s, "anon-wait-0")
	absent(t, s, "anon-wait-1")
	present(t, s, "alice-1")
}

func present(t *testing.T, s store.Tasks, id string) { t.Helper(); presentIn(t, s, "", id) }

func presentIn(t *testing.T, s store.Tasks, tenant, id string) {
	t.Helper()
	if _, err := s.Task(context.Background(), tenant, id); err != nil {
		t.Fatalf("Task(%s/%s): %v; want it kept", tenant, id, err)
	}
}

func absent(t *testing.T, s store.Tasks, id string) {
	t.Helper()
	if _, err := s.Task(context.Background(), "", id); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Task(%s): %v; want it removed (ErrNotFound)", id, err)
	}
}
