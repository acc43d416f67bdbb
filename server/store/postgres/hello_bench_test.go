package postgres

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// BenchmarkHello measures the writes of a blocking hello at 16 concurrent
// callers: the creation (with its first change) and the completion.
func BenchmarkHello(b *testing.B) {
	for _, w := range []int{1, 2, 4, 8} {
		b.Run(fmt.Sprintf("writers=%d", w), func(b *testing.B) { benchHello(b, withWriters(w, 64), WithPoolSize(w+4)) })
	}
}

func benchHello(b *testing.B, opts ...Option) {
	s := openTemp(b, opts...)
	ctx := context.Background()
	var next atomic.Int64
	var n atomic.Int64
	n.Store(int64(b.N))
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n.Add(-1) >= 0 {
				id := fmt.Sprintf("t%d", next.Add(1))
				rec, _, err := s.CreateTask(ctx, store.Creation{Record: store.Record{Task: newTask(id, submitted, 0), Runner: "r1"}})
				if err != nil {
					b.Error(err)
					return
				}
				task := newTask(id, completed, time.Millisecond)
				if _, err = s.UpdateTask(ctx, store.Update{Task: task, Expect: rec.Version, Events: []*a2av1.StreamResponse{statusEvent(task)}}); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "hello/s")
	st := s.Stats()
	b.ReportMetric(float64(st.Writes)/float64(max(st.Batches, 1)), "writes/batch")
}

func BenchmarkHelloOneWrite(b *testing.B) {
	for _, w := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("writers=%d", w), func(b *testing.B) {
			s := openTemp(b, withWriters(w, 64), WithPoolSize(w+4))
			ctx := context.Background()
			var next, n atomic.Int64
			n.Store(int64(b.N))
			start := time.Now()
			var wg sync.WaitGroup
			for range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for n.Add(-1) >= 0 {
						id := fmt.Sprintf("t%d", next.Add(1))
						if _, _, err := s.CreateTask(ctx, store.Creation{Record: store.Record{Task: newTask(id, completed, 0)}}); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "hello/s")
			st := s.Stats()
			b.ReportMetric(float64(st.Writes)/float64(max(st.Batches, 1)), "writes/batch")
		})
	}
}
