package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// testListTotalsUnderFilters keeps a model of every task (tenant, owner,
// context, state, status time) through creations and updates that change
// the state, the status time (also to times other tasks have) and the
// context, and checks after each round that every combination of filters —
// owner, context (one that has tasks and one that has none), state,
// UpdatedAfter, a cursor — gives the model's page, More and an exact Total:
// stores that keep counts or indexes per owner, context and state must move
// a task between them on every such write.
func testListTotalsUnderFilters(t *testing.T, s store.Tasks) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(26, 7))
	type modelTask struct {
		tenant, owner string
		task          *a2av1.Task
		version       int64
	}
	var all []*modelTask
	tenants, owners, contexts := []string{"", "T"}, []string{"", "alice"}, []string{"c0", "c1", "c2"}
	states := []a2av1.TaskState{submitted, working, inputReq, completed, canceled}
	stamp := func() time.Duration { return time.Duration(rng.IntN(30)) * time.Second }
	queries := func() []store.Query {
		var qs []store.Query
		for _, owner := range owners {
			for _, c := range []string{"", "c1", "none"} {
				for _, st := range []a2av1.TaskState{a2av1.TaskState_TASK_STATE_UNSPECIFIED, working, completed} {
					for _, after := range []time.Duration{0, 12 * time.Second} {
						q := store.Query{Owner: owner, ContextID: c, State: st, Limit: 1 + rng.IntN(4)}
						if after != 0 {
							q.UpdatedAfter = base.Add(after)
						}
						if rng.IntN(2) == 0 {
							q.After = &store.Cursor{Time: base.Add(stamp()), ID: fmt.Sprintf("t%03d", rng.IntN(60))}
						}
						qs = append(qs, q)
					}
				}
			}
		}
		return qs
	}
	check := func(round int) {
		t.Helper()
		for _, tenant := range tenants {
			for _, q := range queries() {
				var match []*modelTask
				for _, m := range all {
					st := m.task.GetStatus()
					if m.tenant != tenant || m.owner != q.Owner ||
						q.ContextID != "" && m.task.GetContextId() != q.ContextID ||
						q.State != a2av1.TaskState_TASK_STATE_UNSPECIFIED && st.GetState() != q.State ||
						!q.UpdatedAfter.IsZero() && st.GetTimestamp().AsTime().Before(q.UpdatedAfter) {
						continue
					}
					match = append(match, m)
				}
				slices.SortFunc(match, func(a, b *modelTask) int {
					return store.CursorOf(a.task).Compare(store.CursorOf(b.task))
				})
				total := len(match)
				if q.After != nil {
					match = slices.DeleteFunc(match, func(m *modelTask) bool { return store.CursorOf(m.task).Compare(*q.After) <= 0 })
				}
				want := []string{}
				for _, m := range match[:min(len(match), q.Limit)] {
					want = append(want, m.task.GetId())
				}
				page, err := s.ListTasks(ctx, tenant, q)
				if err != nil {
					t.Fatalf("round %d: ListTasks(%q, %+v): %v", round, tenant, q, err)
				}
				if got := ids(page.Records); !slices.Equal(got, want) || page.Total != total || page.More != (len(match) > q.Limit) {
					t.Fatalf("round %d: ListTasks(%q, %+v) = %v (total %d, more %v), want %v (total %d, more %v)",
						round, tenant, q, got, page.Total, page.More, want, total, len(match) > q.Limit)
				}
			}
		}
	}
	for round := range 6 {
		for range 12 {
			id := fmt.Sprintf("t%03d", len(all))
			m := &modelTask{tenant: tenants[rng.IntN(2)], owner: owners[rng.IntN(2)],
				task: newTask(id, contexts[rng.IntN(len(contexts))], states[rng.IntN(len(states))], stamp())}
			m.version = mustCreate(t, s, m.tenant, m.owner, m.task).Version
			all = append(all, m)
		}
		for _, m := range all {
			if store.IsTerminal(m.task.GetStatus().GetState()) || rng.IntN(3) != 0 {
				continue
			}
			n := next(m.task, states[rng.IntN(len(states))], stamp())
			switch rng.IntN(4) {
			case 0: // a new context (a follow-up that moves the task)
				n.ContextId = contexts[rng.IntN(len(contexts))]
			case 1: // the same status time, another state
				n.Status.Timestamp = m.task.GetStatus().GetTimestamp()
			}
			m.version = mustUpdate(t, s, m.tenant, n, m.version)
			m.task = n
		}
		check(round)
	}
}
