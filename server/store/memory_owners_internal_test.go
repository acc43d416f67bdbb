package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// TestOwnerCountsStayExact: after random creations, resumptions,
// interruptions and endings by a few owners under small caps, the counts
// per owner are those of the tasks stored, every cap holds, and owners
// with nothing counted are forgotten.
func TestOwnerCountsStayExact(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(1, 2))
	m := NewMemory(WithRetention(Retention{MaxTerminalTasks: 40, MaxTerminalTasksPerOwner: 25, MaxInterruptedTasksPerOwner: 5,
		TerminalTaskTTL: time.Hour, MaxBytesPerOwner: 600}))
	owners := []string{"", "alice", "bob", "carol"}
	states := []a2av1.TaskState{a2av1.TaskState_TASK_STATE_WORKING, a2av1.TaskState_TASK_STATE_INPUT_REQUIRED,
		a2av1.TaskState_TASK_STATE_AUTH_REQUIRED, a2av1.TaskState_TASK_STATE_COMPLETED}
	type live struct {
		tenant, id string
		version    int64
		state      a2av1.TaskState
	}
	var tasks []live
	at := time.Now()
	task := func(id string, s a2av1.TaskState) *a2av1.Task {
		at = at.Add(time.Millisecond)
		return &a2av1.Task{Id: id, ContextId: "c", Status: &a2av1.TaskStatus{State: s, Timestamp: timestamppb.New(at)}}
	}
	for i := range 3000 {
		if len(tasks) == 0 || r.IntN(3) == 0 {
			id, tenant := fmt.Sprint("t", i), fmt.Sprint("tenant", r.IntN(2))
			s := states[r.IntN(len(states))]
			if _, _, err := m.CreateTask(ctx, Creation{Record: Record{Tenant: tenant, Owner: owners[r.IntN(len(owners))], Task: task(id, s)}}); err != nil {
				t.Fatal(err)
			}
			tasks = append(tasks, live{tenant, id, 1, s})
			continue
		}
		k := r.IntN(len(tasks))
		lt := &tasks[k]
		if IsTerminal(lt.state) {
			tasks = append(tasks[:k], tasks[k+1:]...)
			continue
		}
		s := states[r.IntN(len(states))]
		if s == lt.state {
			s = a2av1.TaskState_TASK_STATE_WORKING
		}
		v, err := m.UpdateTask(ctx, Update{Tenant: lt.tenant, Task: task(lt.id, s), Expect: lt.version})
		if err != nil {
			tasks = append(tasks[:k], tasks[k+1:]...) // removed by a cap
			continue
		}
		lt.version, lt.state = v, s
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	ended, waiting, sizes := map[string]int{}, map[string]int{}, map[string]int64{}
	total := 0
	for _, tn := range m.tenants {
		for _, e := range tn.tasks {
			rec := e.rec.Load()
			if e.countedEnded || e.countedWaiting {
				sizes[rec.Owner] += e.bytes
			}
			switch st := rec.Task.GetStatus().GetState(); {
			case IsTerminal(st):
				ended[rec.Owner]++
				total++
			case IsInterrupted(st):
				waiting[rec.Owner]++
			}
		}
	}
	if total != m.nEnded || total > 40 {
		t.Errorf("%d terminal tasks stored, %d counted; the cap is 40", total, m.nEnded)
	}
	for _, name := range owners {
		o := m.owners[name]
		if o == nil {
			if ended[name]+waiting[name] != 0 {
				t.Errorf("owner %q forgotten with %d terminal and %d interrupted tasks", name, ended[name], waiting[name])
			}
			continue
		}
		if o.nEnded != ended[name] || o.nWait != waiting[name] || o.nEnded > 25 || o.nWait > 5 {
			t.Errorf("owner %q: counted %d terminal, %d interrupted; stored %d, %d (caps 25, 5)", name, o.nEnded, o.nWait, ended[name], waiting[name])
		}
		if o.bytes != sizes[name] || o.bytes > 600 && o.nEnded+o.nWait > 1 {
			t.Errorf("owner %q: counted %d bytes, its tasks %d (cap 600, kept beyond it only alone)", name, o.bytes, sizes[name])
		}
		if o.nEnded == 0 && o.nWait == 0 {
			t.Errorf("owner %q kept with nothing counted", name)
		}
		if o.nEnded > m.ownersByEnded.top {
			t.Errorf("owner %q holds %d terminal tasks, above the top bucket %d", name, o.nEnded, m.ownersByEnded.top)
		}
	}
	if _, ok := m.ownersByEnded.byCount[m.ownersByEnded.top]; !ok && m.ownersByEnded.top != 0 {
		t.Errorf("the top bucket %d is empty", m.ownersByEnded.top)
	}
}
