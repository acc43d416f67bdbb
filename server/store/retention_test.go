package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// fakeClock is a settable clock for the retention tests.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func newRetentionStore(clock *fakeClock, opts ...MemoryOption) *Memory {
	m := NewMemory(opts...)
	m.now = clock.Now
	return m
}

func retentionTask(id string, state a2av1.TaskState) *a2av1.Task {
	return &a2av1.Task{Id: id, ContextId: "c", Status: &a2av1.TaskStatus{State: state, Timestamp: timestamppb.Now()}}
}

// startTask creates a working task; endTask completes it.
func startTask(t *testing.T, m *Memory, tenant, id string) {
	t.Helper()
	if _, _, err := m.CreateTask(context.Background(), Creation{Record: Record{Tenant: tenant, Task: retentionTask(id, a2av1.TaskState_TASK_STATE_WORKING)}}); err != nil {
		t.Fatal(err)
	}
}

func endTask(t *testing.T, m *Memory, tenant, id string) {
	t.Helper()
	rec, err := m.Task(context.Background(), tenant, id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.UpdateTask(context.Background(), Update{Tenant: tenant, Task: retentionTask(id, a2av1.TaskState_TASK_STATE_COMPLETED), Expect: rec.Version}); err != nil {
		t.Fatal(err)
	}
}

// present lists which of ids the store still reports, through Task.
func present(m *Memory, tenant string, ids ...string) []string {
	var got []string
	for _, id := range ids {
		if _, err := m.Task(context.Background(), tenant, id); err == nil {
			got = append(got, id)
		}
	}
	return got
}

func TestTerminalTaskTTL(t *testing.T) {
	ctx := context.Background()
	clock := &fakeClock{now: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)}
	m := newRetentionStore(clock, WithRetention(Retention{TerminalTaskTTL: time.Hour}))
	startTask(t, m, "", "done")
	startTask(t, m, "", "running")
	endTask(t, m, "", "done")
	cfg := &a2av1.TaskPushNotificationConfig{TaskId: "done", Id: "p1", Url: "https://example.com/hook"}
	if err := m.SavePushConfig(ctx, "", PushConfig{TaskPushNotificationConfig: cfg}); err != nil {
		t.Fatal(err)
	}

	clock.Advance(time.Hour) // exactly the TTL: still kept
	if got := present(m, "", "done", "running"); len(got) != 2 {
		t.Fatalf("at the TTL the store has %v, want both tasks", got)
	}

	clock.Advance(2 * time.Hour) // long past; running tasks never expire
	if got := present(m, "", "done", "running"); fmt.Sprint(got) != "[running]" {
		t.Fatalf("past the TTL the store has %v, want [running]", got)
	}
	// Every read treats the expired task as gone, before any write removes it.
	if _, _, err := m.Subscribe(ctx, "", "done", FollowEvents); !errors.Is(err, ErrNotFound) {
		t.Errorf("Subscribe to an expired task: %v, want ErrNotFound", err)
	}
	if _, err := m.PushConfig(ctx, "", "done", "p1"); !errors.Is(err, ErrNotFound) {
		t.Errorf("PushConfig of an expired task: %v, want ErrNotFound", err)
	}
	if cfgs, _, _ := m.ListPushConfigs(ctx, "", "done", "", 0); len(cfgs) != 0 {
		t.Errorf("ListPushConfigs of an expired task = %v, want none", cfgs)
	}
	if err := m.SavePushConfig(ctx, "", PushConfig{TaskPushNotificationConfig: cfg}); !errors.Is(err, ErrNotFound) {
		t.Errorf("SavePushConfig on an expired task: %v, want ErrNotFound", err)
	}
	page, err := m.ListTasks(ctx, "", Query{Limit: 10})
	if err != nil || page.Total != 1 || len(page.Records) != 1 || page.Records[0].Task.GetId() != "running" {
		t.Errorf("ListTasks = %+v, %v; want only the running task", page, err)
	}

	// The next write removes it for good, and its id is free again.
	startTask(t, m, "", "done")
	if m.ended.len() != 0 {
		t.Errorf("%d tasks still queued for removal, want 0", m.ended.len())
	}
	if _, err := m.PushConfig(ctx, "", "done", "p1"); !errors.Is(err, ErrNotFound) {
		t.Errorf("the new task with the old id inherited push config p1: %v", err)
	}
}

func TestMaxTerminalTasks(t *testing.T) {
	clock := &fakeClock{now: time.Unix(0, 0)}
	m := newRetentionStore(clock, WithRetention(Retention{MaxTerminalTasks: 2}))
	ids := []string{"t1", "t2", "t3", "t4", "w1", "w2", "w3"}
	for _, id := range ids {
		startTask(t, m, "tenant-"+id[:1], id)
	}
	// Ended in the order t2, t1, t3: t2 goes first, whatever its id.
	for _, id := range []string{"t2", "t1", "t3"} {
		clock.Advance(time.Second)
		endTask(t, m, "tenant-t", id)
	}
	if got := present(m, "tenant-t", "t1", "t2", "t3", "t4"); fmt.Sprint(got) != "[t1 t3 t4]" {
		t.Fatalf("after three tasks ended the store has %v, want [t1 t3 t4] (two terminal, one running)", got)
	}
	if got := present(m, "tenant-w", "w1", "w2", "w3"); len(got) != 3 {
		t.Fatalf("running tasks were removed: %v left", got)
	}
	// A task created terminal counts too (an agent may reject at once).
	if _, _, err := m.CreateTask(context.Background(), Creation{Record: Record{Tenant: "tenant-t", Task: retentionTask("r1", a2av1.TaskState_TASK_STATE_REJECTED)}}); err != nil {
		t.Fatal(err)
	}
	if got := present(m, "tenant-t", "t1", "t3", "r1"); fmt.Sprint(got) != "[t3 r1]" {
		t.Fatalf("after a rejected task the store has %v, want [t3 r1]", got)
	}
}

func TestNoRetentionKeepsEverything(t *testing.T) {
	m := NewMemory()
	for i := range 50 {
		id := fmt.Sprint("t", i)
		startTask(t, m, "", id)
		endTask(t, m, "", id)
	}
	if n := len(m.tenants[""].tasks); n != 50 {
		t.Fatalf("%d tasks kept, want all 50", n)
	}
	if m.ended.len() != 0 {
		t.Fatalf("without retention options nothing should be queued, got %d", m.ended.len())
	}
}

// TestRetentionQueueShrinks checks that the removal queue's memory follows
// its length on a long-running store.
func TestRetentionQueueShrinks(t *testing.T) {
	m := newRetentionStore(&fakeClock{now: time.Unix(0, 0)}, WithRetention(Retention{MaxTerminalTasks: 10}))
	for i := range 10_000 {
		id := fmt.Sprint("t", i)
		startTask(t, m, "", id)
		endTask(t, m, "", id)
	}
	if n := len(m.tenants[""].tasks); n != 10 {
		t.Errorf("%d tasks kept, want 10", n)
	}
	if c := cap(m.ended.items); c > 1024 {
		t.Errorf("removal queue holds %d slots for 10 tasks", c)
	}
}

// TestRetentionConcurrent ends and reads tasks from many goroutines (run
// with -race).
func TestRetentionConcurrent(t *testing.T) {
	ctx := context.Background()
	m := NewMemory(WithRetention(Retention{TerminalTaskTTL: time.Nanosecond, MaxTerminalTasks: 5}))
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				id := fmt.Sprint("g", g, "-", i)
				rec, _, err := m.CreateTask(ctx, Creation{Record: Record{Task: retentionTask(id, a2av1.TaskState_TASK_STATE_WORKING)}})
				if err != nil {
					t.Error(err)
					return
				}
				_, _ = m.ListTasks(ctx, "", Query{Limit: 5})
				if _, err := m.UpdateTask(ctx, Update{Task: retentionTask(id, a2av1.TaskState_TASK_STATE_COMPLETED), Expect: rec.Version}); err != nil {
					t.Error(err)
					return
				}
				_, _ = m.Task(ctx, "", id)
			}
		})
	}
	wg.Wait()
	m.mu.RLock()
	defer m.mu.RUnlock()
	if tn := m.tenants[""]; tn != nil && len(tn.tasks) > 5 {
		t.Errorf("%d terminal tasks kept, want at most 5", len(tn.tasks))
	}
}

// BenchmarkTaskLifecycle is one task created working and completed, with
// and without retention bounds (the bounded store removes a task for every
// one that ends).
//
//	go test -run '^$' -bench TaskLifecycle -benchmem ./server/store/
func BenchmarkTaskLifecycle(b *testing.B) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		opts []MemoryOption
	}{
		{"unbounded", nil},
		{"bounded", []MemoryOption{WithRetention(Retention{TerminalTaskTTL: time.Hour, MaxTerminalTasks: 1000})}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			m := NewMemory(tc.opts...)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				id := strconv.Itoa(i)
				i++
				rec, _, err := m.CreateTask(ctx, Creation{Record: Record{Task: retentionTask(id, a2av1.TaskState_TASK_STATE_WORKING)}})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := m.UpdateTask(ctx, Update{Task: retentionTask(id, a2av1.TaskState_TASK_STATE_COMPLETED), Expect: rec.Version}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestInterruptedTasksFreed is the reproduction of issue 13: tasks left
// waiting for input piled up for ever. Past their TTL they are removed at
// the next write, and the heap that finds them shrinks with them.
func TestInterruptedTasksFreed(t *testing.T) {
	clock := &fakeClock{now: time.Unix(1_000_000, 0)}
	m := newRetentionStore(clock, WithRetention(Retention{InterruptedTaskTTL: time.Hour}))
	create := func(id string) {
		task := &a2av1.Task{Id: id, Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_INPUT_REQUIRED, Timestamp: timestamppb.New(clock.Now())}}
		if _, _, err := m.CreateTask(context.Background(), Creation{Record: Record{Task: task}}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 10_000 {
		create(fmt.Sprint("t", i))
	}
	clock.Advance(time.Hour + time.Second)
	create("last")
	if n := len(m.tenants[""].tasks); n != 1 {
		t.Errorf("%d tasks kept after their TTL, want 1", n)
	}
	if n, c := len(m.waiting), cap(m.waiting); n != 1 || c > 1024 {
		t.Errorf("heap holds %d tasks in %d slots, want 1 in a few", n, c)
	}
}
