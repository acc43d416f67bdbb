package store_test

import (
	"context"
	"fmt"
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
		if _, err := m.CreateTask(ctx, store.Creation{Record: store.Record{Owner: "alice", Task: task}}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		page, err := m.ListTasks(ctx, "", store.Query{Owner: "alice", Limit: 50})
		if err != nil || len(page.Records) != 50 || page.Total != 200_000 {
			b.Fatalf("page of %d (total %d), %v", len(page.Records), page.Total, err)
		}
	}
}
