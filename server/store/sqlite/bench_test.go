package sqlite

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
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
		var cfgs []*a2av1.TaskPushNotificationConfig
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
