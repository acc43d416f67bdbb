package postgres

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// BenchmarkOwnerCaps measures a finished task (created SUBMITTED, then
// COMPLETED with one event) of one owner — the anonymous callers — from 8
// writers per CPU, with the per-owner caps off and on: on/under, caps that
// the owner never reaches (one more round trip after each ending write, to
// read the owner's counts); on/full, a cap of 1,000 finished tasks that
// every write goes over (each ending write also removes the owner's oldest,
// under the owner's advisory lock).
//
//	A2AGEN_TEST_POSTGRES=… go test -run - -bench OwnerCaps ./server/store/postgres/
func BenchmarkOwnerCaps(b *testing.B) {
	for _, c := range []struct {
		name string
		r    store.Retention
	}{
		{"off", store.Retention{}},
		{"on/under", store.Retention{MaxTerminalTasksPerOwner: 1 << 30, MaxInterruptedTasksPerOwner: 1000, MaxBytesPerOwner: 1 << 40}},
		{"on/full", store.Retention{MaxTerminalTasksPerOwner: 1000, MaxInterruptedTasksPerOwner: 1000, MaxBytesPerOwner: 1 << 40}},
	} {
		b.Run("caps="+c.name, func(b *testing.B) { benchOwnerCaps(b, WithRetention(c.r)) })
	}
}

func benchOwnerCaps(b *testing.B, opts ...Option) {
	s := openTemp(b, opts...)
	ctx := context.Background()
	// Fill to the cap first, so that on/full removes from the first write.
	for i := range 1000 {
		if _, _, err := s.CreateTask(ctx, store.Creation{Record: store.Record{Task: newTask(fmt.Sprint("pre-", i), completed, 0)}}); err != nil {
			b.Fatal(err)
		}
	}
	var next atomic.Int64
	b.SetParallelism(8)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			id := fmt.Sprint("t", next.Add(1))
			rec, _, err := s.CreateTask(ctx, store.Creation{Record: store.Record{Task: newTask(id, submitted, 0)}})
			if err != nil {
				b.Error(err)
				return
			}
			task := newTask(id, completed, time.Millisecond)
			if _, err := s.UpdateTask(ctx, store.Update{Task: task, Expect: rec.Version, Events: []*a2av1.StreamResponse{statusEvent(task)}}); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
