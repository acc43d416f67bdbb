package postgres

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// BenchmarkUpdate measures concurrent optimistic writes, each to its own
// task, with one status event (written to the feed and notified; no
// webhook unless asked): the cost of a write under group commit, and
// without it (one transaction per write, from as many connections).
//
//	A2AGEN_TEST_POSTGRES=… go test -run - -bench Update ./server/store/postgres/
func BenchmarkUpdate(b *testing.B) {
	b.Run("group/writers=2", func(b *testing.B) { benchUpdate(b, 0) })
	b.Run("group/writers=1", func(b *testing.B) { benchUpdate(b, 0, withWriters(1, 64)) })
	b.Run("group/writers=4", func(b *testing.B) { benchUpdate(b, 0, withWriters(4, 64)) })
	b.Run("group/writers=2/webhooks=2", func(b *testing.B) { benchUpdate(b, 2) })
	b.Run("nogroup/conns=16", func(b *testing.B) { benchUpdate(b, 0, withWriters(16, 1)) })
}

func benchUpdate(b *testing.B, webhooks int, opts ...Option) {
	s := openTemp(b, opts...)
	ctx := context.Background()
	var next atomic.Int64
	b.SetParallelism(8) // 8 writers per CPU: enough to fill batches
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
	b.ReportMetric(float64(st.Writes)/float64(max(st.Batches, 1)), "writes/batch")
}

// BenchmarkTask measures concurrent reads of one task.
func BenchmarkTask(b *testing.B) {
	s := openTemp(b)
	ctx := context.Background()
	create(b, s, store.Creation{Record: store.Record{Task: newTask("t", working, 0)}})
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

// BenchmarkSubscriberMemory opens 1000 subscriptions on one task, each with
// a context of its own as the server gives it, and reports the heap they
// hold per subscription, for the in-memory store and for PostgreSQL.
func BenchmarkSubscriberMemory(b *testing.B) {
	const subs = 1000
	for _, c := range []struct {
		name string
		open func(b *testing.B) store.Store
	}{
		{"memory", func(*testing.B) store.Store { return store.NewMemory() }},
		{"postgres", func(b *testing.B) store.Store { return openTemp(b) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			s := c.open(b)
			defer s.Close()
			if _, _, err := s.CreateTask(context.Background(), store.Creation{Record: store.Record{Task: newTask("t", inputReq, 0)}}); err != nil {
				b.Fatal(err)
			}
			var total int64
			for b.Loop() {
				total += subscriberMemory(b, s, subs)
			}
			b.ReportMetric(float64(total)/float64(b.N*subs), "B/subscriber")
		})
	}
}

// subscriberMemory opens n subscriptions, returns the heap they hold and
// closes them.
func subscriberMemory(b *testing.B, s store.Store, n int) int64 {
	cancels := make([]context.CancelFunc, 0, n)
	subs := make([]store.Subscription, 0, n)
	before := heapInUse()
	for range n {
		ctx, cancel := context.WithCancel(context.Background())
		_, sub, err := s.Subscribe(ctx, "", "t", store.FollowEvents)
		if err != nil {
			b.Fatal(err)
		}
		cancels, subs = append(cancels, cancel), append(subs, sub)
	}
	used := heapInUse() - before
	for i, sub := range subs {
		sub.Close()
		cancels[i]()
	}
	return used
}

func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}

// BenchmarkUpdateSerial measures one writer's writes, one after the other:
// the latency of a write (a round trip, the statement and a commit flushed
// to disk).
func BenchmarkUpdateSerial(b *testing.B) {
	s := openTemp(b)
	ctx := context.Background()
	rec := create(b, s, store.Creation{Record: store.Record{Task: newTask("t", submitted, 0)}})
	v := rec.Version
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		task := newTask("t", working, time.Duration(i)*time.Millisecond)
		var err error
		if v, err = s.UpdateTask(ctx, store.Update{Task: task, Expect: v, Events: []*a2av1.StreamResponse{statusEvent(task)}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkListTasks200k is one ListTasks page of a store holding
// planTasks (200,000) tasks, half of them without an owner in the default
// tenant (anonymous callers; 100 contexts of about 1,000 tasks): a context
// without tasks, a context, a context and state, and all of the owner's.
// The page is a keyset walk of an index; the count an index-only scan of
// the matching range (no counts are kept: docs/storage.md, Listing cost).
func BenchmarkListTasks200k(b *testing.B) {
	s := openTemp(b)
	ctx := context.Background()
	fillTasks(b, s, planTasks)
	if _, err := s.pool.Exec(ctx, "VACUUM ANALYZE tasks"); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		q    store.Query
	}{
		{"context=none", store.Query{ContextID: "nope", Limit: 50}},
		{"context", store.Query{ContextID: "c0042", Limit: 50}},
		{"context+state", store.Query{ContextID: "c0042", State: working, Limit: 50}},
		{"all", store.Query{Limit: 50}},
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
