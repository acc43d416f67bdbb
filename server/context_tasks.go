package server

import (
	"context"
	"fmt"
	"slices"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// ContextTasks returns up to limit of the most recent other tasks of the
// request's context (ContextID) that the request's owner may see, oldest
// first, without the request's own task: the earlier turns of a
// conversation, for executors that keep memory across tasks (host/llm).
// The tasks are the store's snapshots (read-only). A request that did not
// come through a Server (a test's own Request) has none.
func (r *Request) ContextTasks(ctx context.Context, limit int) ([]*a2av1.Task, error) {
	if r.run == nil || r.ContextID == "" || limit <= 0 {
		return nil, nil
	}
	page, err := r.run.s.store.ListTasks(ctx, r.run.key.tenant, store.Query{Owner: r.run.owner, ContextID: r.ContextID, Limit: limit + 1})
	if err != nil {
		return nil, fmt.Errorf("server: listing the tasks of context %q: %w", r.ContextID, err)
	}
	tasks := make([]*a2av1.Task, 0, len(page.Records))
	for _, rec := range page.Records { // newest first
		if rec.Task.GetId() != r.TaskID && len(tasks) < limit {
			tasks = append(tasks, rec.Task)
		}
	}
	slices.Reverse(tasks)
	return tasks, nil
}
