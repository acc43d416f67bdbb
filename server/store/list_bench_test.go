package store_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// BenchmarkMemoryListTasks200k is one ListTasks page (50 tasks) of an
// owner of a tenant of the in-memory store holding 200,000 tasks (issue
// 13: 190 ms per call).
func BenchmarkMemoryListTasks200k(b *testing.B) {
	ctx := context.Background()
	m := store.NewMemory()
	at := time.Unix(1_700_000_000, 0)
	for i := range 200_000 {
		task := &a2av1.Task{Id: fmt.Sprintf("t%06d", i), ContextId: fmt.Sprint("c", i%1000),
			Status: &a2av1.TaskStatus{State: a2av1.TaskState_TASK_STATE_WORKING, Timestamp: timestamppb.New(at.Add(time.Duration(i) * time.Millisecond))}}
		if _, _, err := m.CreateTask(ctx, store.Creation{Record: store.Record{Owner: "alice", Task: task}}); err != nil {
			b.Fatal(err)
		}
	}
	runtime.GC() // not the collection the setup left to do
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		page, err := m.ListTasks(ctx, "", store.Query{Owner: "alice", Limit: 50})
		if err != nil || len(page.Records) != 50 || page.Total != 200_000 {
			b.Fatalf("page of %d (total %d), %v", len(page.Records), page.Total, err)
		}
	}
}

// BenchmarkMemoryListTasks200kFiltered is one filtered ListTasks page of a
// store holding 200,000 tasks without an owner (anonymous callers) in
// 20,000 contexts (issue 26: a listing by a context without tasks walked
// all of them under the store's lock): a context that has no tasks, one
// that has 10, a state, a state in a context, and UpdatedAfter.
func BenchmarkMemoryListTasks200kFiltered(b *testing.B) {
	ctx := context.Background()
	m := store.NewMemory()
	at := time.Unix(1_700_000_000, 0)
	for i := range 200_000 {
		state := a2av1.TaskState_TASK_STATE_COMPLETED
		if i%10 == 0 {
			state = a2av1.TaskState_TASK_STATE_INPUT_REQUIRED
		}
		task := &a2av1.Task{Id: fmt.Sprintf("t%06d", i), ContextId: fmt.Sprint("c", i%20_000),
			Status: &a2av1.TaskStatus{State: state, Timestamp: timestamppb.New(at.Add(time.Duration(i) * time.Millisecond))}}
		if _, _, err := m.CreateTask(ctx, store.Creation{Record: store.Record{Task: task}}); err != nil {
			b.Fatal(err)
		}
	}
	runtime.GC()
	for _, bc := range []struct {
		name  string
		q     store.Query
		total int
	}{
		{"context=none", store.Query{ContextID: "nope", Limit: 50}, 0},
		{"context", store.Query{ContextID: "c42", Limit: 50}, 10},
		{"state", store.Query{State: a2av1.TaskState_TASK_STATE_INPUT_REQUIRED, Limit: 50}, 20_000},
		{"context+state", store.Query{ContextID: "c40", State: a2av1.TaskState_TASK_STATE_INPUT_REQUIRED, Limit: 50}, 10},
		{"updatedAfter", store.Query{UpdatedAfter: at.Add(100 * time.Second), Limit: 50}, 100_000},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				page, err := m.ListTasks(ctx, "", bc.q)
				if err != nil || page.Total != bc.total || len(page.Records) != min(bc.total, 50) {
					b.Fatalf("page of %d (total %d), %v; want total %d", len(page.Records), page.Total, err, bc.total)
				}
			}
		})
	}
}
