package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/a2agen/a2agen/server/store"
)

// must ends the test when err is not nil, naming the step (a format and
// its arguments) that failed.
func must(t *testing.T, err error, format string, args ...any) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", fmt.Sprintf(format, args...), err)
	}
}

// expectIs reports, without ending the test, an error that is not want.
func expectIs(t *testing.T, err, want error, format string, args ...any) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s: %v; want %v", fmt.Sprintf(format, args...), err, want)
	}
}

// errOf drops a result a step does not look at, keeping its error for must.
func errOf[T any](_ T, err error) error { return err }

// errOf2 is errOf for calls with two results before the error.
func errOf2[T, U any](_ T, _ U, err error) error { return err }

// mustSubscribe subscribes to a task that must exist.
func mustSubscribe(t *testing.T, ctx context.Context, s store.Subscriptions, tenant, id string, f store.Follow) (store.Record, store.Subscription) {
	t.Helper()
	rec, sub, err := s.Subscribe(ctx, tenant, id, f)
	must(t, err, "Subscribe(%q, %q, %v)", tenant, id, f)
	return rec, sub
}

// mustCreateWith writes a creation that must succeed; mustCreate is the
// short form for a task alone.
func mustCreateWith(t *testing.T, ctx context.Context, s store.Tasks, c store.Creation) (store.Record, store.Subscription) {
	t.Helper()
	rec, sub, err := s.CreateTask(ctx, c)
	must(t, err, "CreateTask(%q, %q)", c.Tenant, c.Task.GetId())
	return rec, sub
}

// mustUpdateWith writes an update that must succeed and returns the new
// version; mustUpdate is the short form for a snapshot and its events.
func mustUpdateWith(t *testing.T, ctx context.Context, s store.Tasks, u store.Update) int64 {
	t.Helper()
	v, err := s.UpdateTask(ctx, u)
	must(t, err, "UpdateTask(%q, %q, expect %d)", u.Tenant, u.Task.GetId(), u.Expect)
	return v
}

// mustTask reads a task that must exist.
func mustTask(t *testing.T, ctx context.Context, s store.Tasks, tenant, id string) store.Record {
	t.Helper()
	rec, err := s.Task(ctx, tenant, id)
	must(t, err, "Task(%q, %q)", tenant, id)
	return rec
}

// mustList lists tasks where the listing must succeed.
func mustList(t *testing.T, ctx context.Context, s store.Tasks, tenant string, q store.Query) store.Page {
	t.Helper()
	page, err := s.ListTasks(ctx, tenant, q)
	must(t, err, "ListTasks(%q, %+v)", tenant, q)
	return page
}
