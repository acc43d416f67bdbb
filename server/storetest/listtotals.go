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
	m := &totalsModel{rng: rand.New(rand.NewPCG(26, 7))}
	for round := range 6 {
		for range 12 {
			m.create(t, s)
		}
		for _, task := range m.all {
			if !store.IsTerminal(task.task.GetStatus().GetState()) && m.rng.IntN(3) == 0 {
				m.update(t, s, task)
			}
		}
		m.check(t, s, round)
	}
}

// totalsModel is what testListTotalsUnderFilters expects the store to hold.
type totalsModel struct {
	rng *rand.Rand
	all []*modelTask
}

type modelTask struct {
	tenant, owner string
	task          *a2av1.Task
	version       int64
}

var (
	totalsTenants  = []string{"", "T"}
	totalsOwners   = []string{"", "alice"}
	totalsContexts = []string{"c0", "c1", "c2"}
	totalsStates   = []a2av1.TaskState{submitted, working, inputReq, completed, canceled}
)

// stamp is a status time of one of 30 seconds, so that tasks share them.
func (m *totalsModel) stamp() time.Duration { return time.Duration(m.rng.IntN(30)) * time.Second }

func (m *totalsModel) create(t *testing.T, s store.Tasks) {
	id := fmt.Sprintf("t%03d", len(m.all))
	task := &modelTask{tenant: totalsTenants[m.rng.IntN(2)], owner: totalsOwners[m.rng.IntN(2)],
		task: newTask(id, totalsContexts[m.rng.IntN(len(totalsContexts))], totalsStates[m.rng.IntN(len(totalsStates))], m.stamp())}
	task.version = mustCreate(t, s, task.tenant, task.owner, task.task).Version
	m.all = append(m.all, task)
}

// update moves a task to a random state and status time, sometimes to
// another context or to the status time it had.
func (m *totalsModel) update(t *testing.T, s store.Tasks, task *modelTask) {
	n := next(task.task, totalsStates[m.rng.IntN(len(totalsStates))], m.stamp())
	switch m.rng.IntN(4) {
	case 0: // a new context (a follow-up that moves the task)
		n.ContextId = totalsContexts[m.rng.IntN(len(totalsContexts))]
	case 1: // the same status time, another state
		n.Status.Timestamp = task.task.GetStatus().GetTimestamp()
	}
	task.version = mustUpdate(t, s, task.tenant, n, task.version)
	task.task = n
}

// queries are every combination of the filters, each with a random limit
// and, half of the time, a random cursor.
func (m *totalsModel) queries() []store.Query {
	var qs []store.Query
	for _, owner := range totalsOwners {
		for _, c := range []string{"", "c1", "none"} {
			for _, st := range []a2av1.TaskState{a2av1.TaskState_TASK_STATE_UNSPECIFIED, working, completed} {
				for _, after := range []time.Duration{0, 12 * time.Second} {
					qs = append(qs, m.query(owner, c, st, after))
				}
			}
		}
	}
	return qs
}

func (m *totalsModel) query(owner, contextID string, state a2av1.TaskState, after time.Duration) store.Query {
	q := store.Query{Owner: owner, ContextID: contextID, State: state, Limit: 1 + m.rng.IntN(4)}
	if after != 0 {
		q.UpdatedAfter = base.Add(after)
	}
	if m.rng.IntN(2) == 0 {
		q.After = &store.Cursor{Time: base.Add(m.stamp()), ID: fmt.Sprintf("t%03d", m.rng.IntN(60))}
	}
	return q
}

// matches reports whether task is one q lists in tenant, cursor aside.
func (task *modelTask) matches(tenant string, q store.Query) bool {
	st := task.task.GetStatus()
	return task.tenant == tenant && task.owner == q.Owner &&
		(q.ContextID == "" || task.task.GetContextId() == q.ContextID) &&
		(q.State == a2av1.TaskState_TASK_STATE_UNSPECIFIED || st.GetState() == q.State) &&
		(q.UpdatedAfter.IsZero() || !st.GetTimestamp().AsTime().Before(q.UpdatedAfter))
}

// want is the page the model gives for q in tenant: its ids, the total
// before the cursor is applied, and whether more follow.
func (m *totalsModel) want(tenant string, q store.Query) (ids []string, total int, more bool) {
	var match []*modelTask
	for _, task := range m.all {
		if task.matches(tenant, q) {
			match = append(match, task)
		}
	}
	slices.SortFunc(match, func(a, b *modelTask) int {
		return store.CursorOf(a.task).Compare(store.CursorOf(b.task))
	})
	total = len(match)
	if q.After != nil {
		match = slices.DeleteFunc(match, func(task *modelTask) bool { return store.CursorOf(task.task).Compare(*q.After) <= 0 })
	}
	ids = []string{}
	for _, task := range match[:min(len(match), q.Limit)] {
		ids = append(ids, task.task.GetId())
	}
	return ids, total, len(match) > q.Limit
}

func (m *totalsModel) check(t *testing.T, s store.Tasks, round int) {
	t.Helper()
	for _, tenant := range totalsTenants {
		for _, q := range m.queries() {
			want, total, more := m.want(tenant, q)
			page := mustList(t, context.Background(), s, tenant, q)
			if got := ids(page.Records); !slices.Equal(got, want) || page.Total != total || page.More != more {
				t.Fatalf("round %d: ListTasks(%q, %+v) = %v (total %d, more %v), want %v (total %d, more %v)",
					round, tenant, q, got, page.Total, page.More, want, total, more)
			}
		}
	}
}
