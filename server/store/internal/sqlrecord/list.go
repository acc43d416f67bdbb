package sqlrecord

import (
	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
)

// Shape says which optional filters a listing uses; a store keys its
// listing statements by it.
type Shape uint8

// The optional filters of a listing.
const (
	ByContext      Shape = 1 << iota // Query.ContextID
	ByState                          // Query.State
	ByUpdatedAfter                   // Query.UpdatedAfter
	ByTTL                            // terminal tasks past the TTL left out
	ByCursor                         // Query.After
	ByWaitTTL                        // interrupted tasks past their TTL left out
)

// Listing is a ListTasks query as the values its statement binds.
type Listing struct {
	Shape         Shape
	Tenant, Owner string
	ContextID     string
	State         a2av1.TaskState
	UpdatedAfter  int64 // nanoseconds; 0 unless ByUpdatedAfter
	LiveSince     int64 // Cutoffs.LiveSince
	WaitingSince  int64 // Cutoffs.WaitingSince
	CursorTime    int64 // 0 unless ByCursor
	CursorID      string
	Limit         int64 // Query.Limit+1: one more tells whether more follow
}

// List is the listing of q in tenant under the cutoffs at now.
func (c Cutoffs) List(tenant string, q store.Query, now int64) Listing {
	l := Listing{Tenant: tenant, Owner: q.Owner, ContextID: q.ContextID, State: q.State,
		LiveSince: c.LiveSince(now), WaitingSince: c.WaitingSince(now), Limit: int64(q.Limit) + 1}
	if q.ContextID != "" {
		l.Shape |= ByContext
	}
	if q.State != a2av1.TaskState_TASK_STATE_UNSPECIFIED {
		l.Shape |= ByState
	}
	if !q.UpdatedAfter.IsZero() {
		l.Shape |= ByUpdatedAfter
		l.UpdatedAfter = Nanos(q.UpdatedAfter)
	}
	if c.TTL > 0 {
		l.Shape |= ByTTL
	}
	if c.InterruptedTTL > 0 {
		l.Shape |= ByWaitTTL
	}
	if q.After != nil {
		l.Shape |= ByCursor
		l.CursorTime, l.CursorID = Nanos(q.After.Time), q.After.ID
	}
	return l
}
