package sqlite

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/a2agen/a2agen/server/store"
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
		rec, err := s.CreateTask(ctx, store.Creation{Record: store.Record{Task: newTask(id, submitted, 0)}, PushConfigs: cfgs})
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
	_, err := s.CreateTask(ctx, store.Creation{Record: store.Record{Task: task, Runner: runner, LeaseUntil: now.Add(30 * time.Second)},
		Events: []*a2av1.StreamResponse{{Payload: &a2av1.StreamResponse_Task{Task: task}}}})
	if err != nil {
		return err
	}
	snap, sub, err := s.Subscribe(ctx, "", id)
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
	if _, err := s.CreateTask(ctx, store.Creation{Record: store.Record{Task: newTask("t", working, 0)}}); err != nil {
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
			if _, err := s.CreateTask(ctx, store.Creation{Record: store.Record{Owner: "o", Task: task}}); err != nil {
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
