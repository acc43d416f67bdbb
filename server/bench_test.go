package server_test

import (
	"context"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/echo"
	"github.com/a2agen/a2agen/server"
)

// The benchmarks measure the default server end to end: generated client →
// binding on loopback → server → echo executor → store, and back. Besides
// ns/op they report req/s (or events/s) and cpu-µs/op, the CPU time of the
// whole process (client and server) per operation, which is less sensitive
// to other load on the machine than wall time.
//
//	go test -run '^$' -bench . -benchmem ./server/
//	go test -run '^$' -bench IdleStream -benchtime=1x ./server/

// cpuMeter reports CPU time per operation when stopped.
type cpuMeter struct{ start time.Duration }

func startCPU() cpuMeter { return cpuMeter{processCPU()} }

func (m cpuMeter) report(b *testing.B) {
	if used := processCPU() - m.start; used > 0 && b.N > 0 {
		b.ReportMetric(float64(used.Microseconds())/float64(b.N), "cpu-µs/op")
	}
}

func benchEnv(b *testing.B, bd binding) *env {
	return newEnv(b, bd, &echo.Agent{ChunkInterval: -1}, nil, server.WithLogger(discardLogger()))
}

// BenchmarkSendMessage: SendMessage "hello" (a task created, an artifact, and
// COMPLETED), one call at a time and with concurrent clients.
func BenchmarkSendMessage(b *testing.B) {
	for _, bd := range bindings {
		b.Run(bd.name, func(b *testing.B) {
			e := benchEnv(b, bd)
			req := &a2av1.SendMessageRequest{Message: userMsg("hello")}
			ctx := context.Background()
			b.ReportAllocs()
			cpu := startCPU()
			for b.Loop() {
				req.Message.MessageId = benchMessageID() // a new send, not a retry
				if _, err := e.c.SendMessage(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
			cpu.report(b)
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
		})
		b.Run(bd.name+"/parallel", func(b *testing.B) {
			e := benchEnv(b, bd)
			ctx := context.Background()
			b.ReportAllocs()
			b.SetParallelism(8)
			b.ResetTimer()
			cpu := startCPU()
			defer cpu.report(b)
			b.RunParallel(func(pb *testing.PB) {
				req := &a2av1.SendMessageRequest{Message: userMsg("hello")}
				for pb.Next() {
					req.Message.MessageId = benchMessageID() // a new send, not a retry
					if _, err := e.c.SendMessage(ctx, req); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
		})
	}
}

// BenchmarkStreamingMessage: SendStreamingMessage "stream 10" — 13 events
// (task, WORKING, 10 chunks, COMPLETED) per operation.
func BenchmarkStreamingMessage(b *testing.B) {
	const eventsPerStream = 13
	for _, bd := range bindings {
		b.Run(bd.name, func(b *testing.B) {
			e := benchEnv(b, bd)
			req := &a2av1.SendMessageRequest{Message: userMsg("stream 10")}
			ctx := context.Background()
			b.ReportAllocs()
			cpu := startCPU()
			defer cpu.report(b)
			for b.Loop() {
				req.Message.MessageId = benchMessageID() // a new send, not a retry
				n := 0
				for _, err := range e.c.SendStreamingMessage(ctx, req) {
					if err != nil {
						b.Fatal(err)
					}
					n++
				}
				if n != eventsPerStream {
					b.Fatalf("%d events, want %d", n, eventsPerStream)
				}
			}
			b.ReportMetric(float64(b.N*eventsPerStream)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// BenchmarkIdleStreamMemory opens 1000 SubscribeToTask streams on a task
// waiting for input and reports the heap and stack they hold, per stream;
// one operation opens, measures and closes the 1000 streams. Client and
// server run in the same process, so the figure covers both ends of each
// stream (connections, goroutines, buffers, the subscription).
func BenchmarkIdleStreamMemory(b *testing.B) {
	const streams = 1000
	for _, bd := range bindings {
		b.Run(bd.name, func(b *testing.B) {
			e := benchEnv(b, bd)
			task := sendTask(b, e.c, "input")
			var total int64
			for b.Loop() {
				total += idleStreams(b, e.c, task.GetId(), streams)
			}
			b.ReportMetric(float64(total)/float64(b.N*streams), "B/stream")
		})
	}
}

// idleStreams opens n streams on the task, returns the memory they hold,
// and closes them.
func idleStreams(b *testing.B, c a2av1.A2AServiceClient, id string, n int) int64 {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg, ready sync.WaitGroup
	before := memInUse()
	for range n {
		wg.Add(1)
		ready.Add(1)
		go func() {
			defer wg.Done()
			first := true
			for _, err := range c.SubscribeToTask(ctx, &a2av1.SubscribeToTaskRequest{Id: id}) {
				if first {
					first = false
					ready.Done()
				}
				if err != nil {
					if ctx.Err() == nil {
						b.Error(err)
					}
					return
				}
			}
		}()
	}
	ready.Wait()
	used := memInUse() - before
	cancel()
	wg.Wait()
	return used
}

func memInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse + m.StackInuse)
}

// benchMessageID is a new message id for each send of a benchmark that
// reuses its request: the server would take a repeated id for a retry
// (idempotency.go).
func benchMessageID() string { return "bench-" + strconv.FormatInt(msgSeq.Add(1), 10) }
