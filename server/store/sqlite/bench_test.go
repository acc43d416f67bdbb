package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/a2agen/a2agen/server/store"
	"github.com/a2agen/a2agen/server/store/internal/sqlrecord"
)

// BenchmarkUpdate measures concurrent optimistic writes, each to its own
// task, with one status event (published, no webhook): the cost of a write
// under group commit.
func BenchmarkUpdate(b *testing.B) {
	for _, sync := range []string{"normal", "full"} {
		b.Run("sync="+sync, func(b *testing.B) { benchUpdate(b, 0, WithSynchronous(sync)) })
	}
	b.Run("sync=normal/webhooks=2", func(b *testing.B) { benchUpdate(b, 2) })
}

func benchUpdate(b *testing.B, webhooks int, opts ...Option) {
	s := openTemp(b, opts...)
	ctx := context.Background()
	var next atomic.Int64
	b.SetParallelism(16) // writers per CPU: enough to fill batches
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		id := fmt.Sprintf("t%d", next.Add(1))
		var cfgs []store.PushConfig
		for i := range webhooks {
			cfgs = append(cfgs, cfg(id, fmt.Sprintf("p%d", i)))
		}
		rec, _, err := s.CreateTask(ctx, store.Creation{Record: store.Record{Task: newTask(id, submitted, 0)}, PushConfigs: cfgs})
		if err != nil {
			b.Error(err)
			return
		}
		v := rec.Version
		i := 0
		for pb.Next() {
			i++
			task := newTask(id, working, time.Duration(i)*time.Millisecond)
			v, err = s.UpdateTask(ctx, store.Update{Task: task, Expect: v, Events: []*a2av1.StreamResponse{statusEvent(task)}})
			if err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	st := s.Stats()
	b.ReportMetric(float64(st.Writes)/float64(max(st.Transactions, 1)), "writes/txn")
}

// BenchmarkSimpleTask is what the server asks of the store for a simple
// task (SendMessage "hello" → COMPLETED, blocking), from 16 concurrent
// clients: the task is created with its first message and the execution
// record, subscribed to (the blocking call's snapshot), given an artifact,
// completed, and read once more for the answer. cpu-µs/op is the process's
// CPU time (user and system) per task.
func BenchmarkSimpleTask(b *testing.B) {
	s := openTemp(b)
	ctx := context.Background()
	runner := store.NewRunnerID()
	var next atomic.Int64
	b.SetParallelism(8)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := processCPU()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := simpleTask(ctx, s, runner, fmt.Sprintf("%016x-task", uint64(next.Add(1))*0x9e3779b97f4a7c15)); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	if used := processCPU() - cpu; used > 0 {
		b.ReportMetric(float64(used.Microseconds())/float64(b.N), "cpu-µs/op")
	}
	st := s.Stats()
	b.ReportMetric(float64(st.Writes)/float64(max(st.Transactions, 1)), "writes/txn")
}

func simpleTask(ctx context.Context, s *Store, runner, id string) error {
	msg := &a2av1.Message{MessageId: id + "-m", ContextId: id + "-ctx", TaskId: id, Role: a2av1.Role_ROLE_USER,
		Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: "hello"}}}}
	now := time.Now()
	task := &a2av1.Task{Id: id, ContextId: id + "-ctx", History: []*a2av1.Message{msg},
		Status: &a2av1.TaskStatus{State: submitted, Timestamp: timestamppb.New(now)}}
	_, _, err := s.CreateTask(ctx, store.Creation{Record: store.Record{Task: task, Runner: runner, LeaseUntil: now.Add(30 * time.Second)},
		Events: []*a2av1.StreamResponse{{Payload: &a2av1.StreamResponse_Task{Task: task}}}})
	if err != nil {
		return err
	}
	snap, sub, err := s.Subscribe(ctx, "", id, store.FollowEvents)
	if err != nil {
		return err
	}
	defer sub.Close()
	art := &a2av1.Artifact{ArtifactId: id + "-a", Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: "hello"}}}}
	t2 := &a2av1.Task{Id: id, ContextId: task.ContextId, History: task.History, Status: task.Status, Artifacts: []*a2av1.Artifact{art}}
	v, err := s.UpdateTask(ctx, store.Update{Task: t2, Expect: snap.Version, Events: []*a2av1.StreamResponse{{Payload: &a2av1.StreamResponse_ArtifactUpdate{
		ArtifactUpdate: &a2av1.TaskArtifactUpdateEvent{TaskId: id, ContextId: task.ContextId, Artifact: art, LastChunk: true}}}}})
	if err != nil {
		return err
	}
	t3 := &a2av1.Task{Id: id, ContextId: task.ContextId, History: task.History, Artifacts: t2.Artifacts,
		Status: &a2av1.TaskStatus{State: completed, Timestamp: timestamppb.Now()}}
	if _, err := s.UpdateTask(ctx, store.Update{Task: t3, Expect: v, Events: []*a2av1.StreamResponse{statusEvent(t3)}}); err != nil {
		return err
	}
	for range sub.Events() {
	}
	_, err = s.Task(ctx, "", id)
	return err
}

// BenchmarkTask measures concurrent reads of one task.
func BenchmarkTask(b *testing.B) {
	s := openTemp(b)
	ctx := context.Background()
	if _, _, err := s.CreateTask(ctx, store.Creation{Record: store.Record{Task: newTask("t", working, 0)}}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := s.Task(ctx, "", "t"); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkListTasks lists pages of 10,000 tasks of one owner (9,990
// completed, 10 working; contexts of 5 tasks): all of them, by state, by
// context.
func BenchmarkListTasks(b *testing.B) {
	s := openTemp(b)
	ctx := context.Background()
	const n = 10000
	var wg sync.WaitGroup
	sem := make(chan struct{}, 64)
	for i := range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			id := fmt.Sprintf("%016x", uint64(i+1)*0x9e3779b97f4a7c15)
			task := newTask(id, completed, time.Duration(i)*time.Millisecond)
			if i%1000 == 0 {
				task.Status.State = working
			}
			task.ContextId = fmt.Sprintf("ctx-%d", i/5)
			if _, _, err := s.CreateTask(ctx, store.Creation{Record: store.Record{Owner: "o", Task: task}}); err != nil {
				b.Error(err)
			}
		})
	}
	wg.Wait()
	for _, c := range []struct {
		name string
		q    store.Query
	}{
		{"all", store.Query{Owner: "o", Limit: 50}},
		{"state", store.Query{Owner: "o", State: working, Limit: 50}},
		{"context", store.Query{Owner: "o", ContextID: "ctx-777", Limit: 50}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.ListTasks(ctx, "", c.q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// fillAnonymous stores n tasks without an owner (anonymous callers) in the
// database at path, in one transaction of its own (the store's triggers
// keep the counts): contexts of 10 tasks, one task in ten
// INPUT_REQUIRED, the others COMPLETED, status times a millisecond apart.
func fillAnonymous(b *testing.B, path string, n int) {
	b.Helper()
	s, err := Open(context.Background(), path) // creates the schema
	if err != nil {
		b.Fatal(err)
	}
	s.Close()
	db, err := sql.Open("sqlite", dsn(path, "busy_timeout(5000)"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	ins, err := tx.Prepare(`INSERT INTO tasks (tenant, id, owner, context_id, state, status_time, version, snapshot, ended_at) VALUES ('', ?, '', ?, ?, ?, 1, ?, ?)`)
	if err != nil {
		b.Fatal(err)
	}
	for i := range n {
		task := newTask(fmt.Sprintf("t%07d", i), completed, time.Duration(i)*time.Millisecond)
		task.ContextId = fmt.Sprintf("c%d", i%(n/10))
		var ended any = sqlrecord.Nanos(task.GetStatus().GetTimestamp().AsTime())
		if i%10 == 0 {
			task.Status.State, ended = a2av1.TaskState_TASK_STATE_INPUT_REQUIRED, nil
		}
		blob, err := proto.Marshal(task)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ins.Exec(task.GetId(), task.GetContextId(), int64(task.GetStatus().GetState()), sqlrecord.Nanos(task.GetStatus().GetTimestamp().AsTime()), blob, ended); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkListTasks200k is one filtered ListTasks page of a store holding
// 200,000 tasks without an owner in 20,000 contexts (issue 26: with the
// listing index of the first release, a context without tasks counted
// every anonymous task, 0.2–0.45 s of CPU per call): a context that has no
// tasks, one that has 10, a state in a context, UpdatedAfter over the
// newest 1,000 tasks, and all of them (the count from task_counts).
func BenchmarkListTasks200k(b *testing.B) {
	path := filepath.Join(b.TempDir(), "agent.db")
	const n = 200_000
	fillAnonymous(b, path, n)
	s := openAt(b, path)
	ctx := context.Background()
	for _, c := range []struct {
		name  string
		q     store.Query
		total int
	}{
		{"context=none", store.Query{ContextID: "nope", Limit: 50}, 0},
		{"context", store.Query{ContextID: "c42", Limit: 50}, 10},
		{"context+state", store.Query{ContextID: "c40", State: a2av1.TaskState_TASK_STATE_INPUT_REQUIRED, Limit: 50}, 10},
		{"updatedAfter", store.Query{UpdatedAfter: base.Add((n - 1000) * time.Millisecond), Limit: 50}, 1000},
		{"all", store.Query{Limit: 50}, n},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				page, err := s.ListTasks(ctx, "", c.q)
				if err != nil || page.Total != c.total || len(page.Records) != min(c.total, 50) {
					b.Fatalf("page of %d (total %d), %v; want total %d", len(page.Records), page.Total, err, c.total)
				}
			}
		})
	}
}
