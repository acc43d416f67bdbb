package postgres

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
	"github.com/a2agen/a2agen/server/store/internal/sqlrecord"
)

// maxRetries bounds how often a write is tried again after it lost a race
// with a change of its task's push configs (each try takes a new snapshot,
// so a second try practically always succeeds).
const maxRetries = 8

// errRetry says a write matched no row although its task is at the expected
// version and not terminal: the push configs changed meanwhile.
var errRetry = errors.New("retry")

// idPrefix is the part of the delivery ids of a task's deliveries before
// the version (see store.DeliveryIDPrefix); SQL appends the rest.
func idPrefix(tenant, taskID string) string {
	if tenant == "" {
		return url.QueryEscape(taskID) + "/"
	}
	return url.QueryEscape(tenant) + ":" + url.QueryEscape(taskID) + "/"
}

// maxPayload is the longest notification payload sent as is (PostgreSQL
// takes up to 8000 bytes); a longer one (a huge tenant or task id) becomes
// "catch up everything".
const maxPayload = 7900

// payload is a notification after its kind character: the sending store,
// the version, and the tenant and task id (the tenant's length first, so
// that neither needs escaping).
func (s *Store) payload(tenant, id string, version int64) string {
	p := s.origin + " " + strconv.FormatInt(version, 10) + " " + strconv.Itoa(len(tenant)) + " " + tenant + id
	if len(p) > maxPayload {
		return s.origin + " *"
	}
	return p
}

// ---- CreateTask ----

// CreateTask implements store.Tasks.
func (s *Store) create(ctx context.Context, c store.Creation) (store.Record, error) {
	if err := s.checkOpen(); err != nil {
		return store.Record{}, err
	}
	nc, err := s.names.EncodeCreation(c)
	if err != nil {
		return store.Record{}, err
	}
	rec, row, id := nc.Record, nc.Row, nc.Record.Task.GetId()
	o := s.createOp(c, nc)
	for attempt := 0; ; attempt++ {
		created, err := s.tryCreate(ctx, o, row.Terminal)
		if err != nil {
			return store.Record{}, err
		}
		if created {
			s.capsAfter(o.key, row)
			return rec, nil
		}
		if err := s.freeExpiredID(ctx, rec.Tenant, id); err != nil {
			return store.Record{}, err
		}
		if attempt == maxRetries {
			return store.Record{}, fmt.Errorf("postgres store %s: creating task %q: the id stays taken by a task being removed", s.name, id)
		}
	}
}

// createOp is the write that inserts the new task: with its push configs and the deliveries
// of its events when it has configs, the task alone when not. tryCreate fills in the times.
func (s *Store) createOp(c store.Creation, nc sqlrecord.Creation) *writeOp {
	rec, row, cfgs, events := nc.Record, nc.Row, nc.Configs, nc.Events
	id := rec.Task.GetId()
	o := &writeOp{key: topicKey{rec.Tenant, id}, what: "creating task " + strconv.Quote(id), sql: sqlCreateTask}
	o.args = []any{rec.Tenant, id, rec.Owner, row.ContextID, int16(row.State), row.StatusTime, row.Snapshot, rec.Runner,
		leaseArg(rec.LeaseUntil), nil, int64(len(cfgs.IDs))}
	if len(cfgs.IDs) > 0 {
		prefixes := make([]string, len(events))
		for i := range events {
			prefixes[i] = store.DeliveryIDPrefix(rec.Tenant, id, 1, i)
		}
		o.sql = sqlCreateTaskWithConfigs
		o.notifies = len(events) > 0
		if !row.Terminal {
			s.configured.Store(o.key, struct{}{})
		}
		o.args = append(o.args, cfgs.IDs, cfgs.Blobs, int32(len(events)), nil, events, prefixes, s.opts.channel, s.payload(rec.Tenant, id, 1),
			c.Trace.Parent, c.Trace.State, cfgs.Versions)
	}
	o.args = append(o.args, rec.Generation)
	return o
}

// tryCreate runs the create write once, stamped with the time now (its end, when the task is
// created terminal; its deliveries' creation time), and reports whether it inserted the
// task: false when the id is taken.
func (s *Store) tryCreate(ctx context.Context, o *writeOp, terminal bool) (bool, error) {
	now := s.now()
	var ended *int64
	if terminal {
		ended = &now
	}
	o.args[9] = ended
	if len(o.args) > 14 {
		o.args[14] = now
	}
	if err := s.w.submit(ctx, o); err != nil {
		return false, err
	}
	if o.err != nil {
		return false, o.err
	}
	return o.found && o.res[0] > 0, nil
}

// freeExpiredID handles a create whose id is taken: by a task past its TTL (or waited out),
// that task is removed and the id is free again; by a live task, the create fails with
// store.ErrExists. A task removed meanwhile needs nothing.
func (s *Store) freeExpiredID(ctx context.Context, tenant, id string) error {
	var version, statusTime int64
	var state int16
	var endedAt *int64
	err := s.pool.QueryRow(ctx, sqlTaskState, tenant, id).Scan(&version, &endedAt, &state, &statusTime)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil // removed meanwhile: try again
	case err != nil:
		return s.dbErr("creating task "+strconv.Quote(id)+": reading the existing task", err)
	case !s.expired(endedAt) && !s.waitedOut(state, statusTime):
		return fmt.Errorf("%w: task %q", store.ErrExists, id)
	}
	if _, err := s.pool.Exec(ctx, sqlRemoveExpired, tenant, id, s.liveSince(), s.waitingSince()); err != nil {
		return s.dbErr("creating task "+strconv.Quote(id)+": removing the expired task", err)
	}
	return nil
}

// ---- Task ----

// Task implements store.Tasks.
func (s *Store) Task(ctx context.Context, tenant, id string) (store.Record, error) {
	if err := s.checkOpen(); err != nil {
		return store.Record{}, err
	}
	if !store.ValidIDs(tenant, id) { // PostgreSQL's text cannot hold it: no such task
		return store.Record{}, fmt.Errorf("%w: task %q", store.ErrNotFound, id)
	}
	rec := store.Record{Tenant: tenant}
	var (
		blob           []byte
		lease, endedAt *int64
	)
	err := s.pool.QueryRow(ctx, sqlTask, tenant, id).Scan(&rec.Owner, &rec.Version, &rec.Generation, &blob, &rec.Runner, &lease, &endedAt)
	if errors.Is(err, pgx.ErrNoRows) || err == nil && s.expired(endedAt) {
		return store.Record{}, fmt.Errorf("%w: task %q", store.ErrNotFound, id)
	}
	if err != nil {
		return store.Record{}, s.dbErr("reading task "+strconv.Quote(id), err)
	}
	rec.LeaseUntil = timeOf(lease)
	if rec.Task, err = s.names.DecodeTask(id, rec.Generation, blob); err != nil {
		return store.Record{}, err
	}
	if st := rec.Task.GetStatus(); s.waitedOut(int16(st.GetState()), sqlrecord.Nanos(st.GetTimestamp().AsTime())) {
		return store.Record{}, fmt.Errorf("%w: task %q", store.ErrNotFound, id)
	}
	return rec, nil
}

// ---- UpdateTask ----

// UpdateTask implements store.Tasks.
func (s *Store) UpdateTask(ctx context.Context, u store.Update) (int64, error) {
	if err := s.checkOpen(); err != nil {
		return 0, err
	}
	row, events, err := s.names.EncodeUpdate(u)
	if err != nil {
		return 0, err
	}
	o, full, configured := s.updateOp(u, row, events)
	return s.writeUpdate(ctx, o, full, configured, u, row)
}

// updateOp is the write of an update in its full form, which queues the
// events as deliveries for the task's push configs (full are its
// arguments), or in its lean form when this replica knows of no config for
// the task (configured false).
func (s *Store) updateOp(u store.Update, row sqlrecord.TaskRow, events [][]byte) (o *writeOp, full []any, configured bool) {
	id := u.Task.GetId()
	queue := len(events)
	if queue == 0 && row.Terminal {
		events = [][]byte{nil} // the end marker of the feed
	}
	var lease *int64
	if u.Runner != "" {
		lease = leaseArg(u.LeaseUntil)
	}
	var prefix string
	if queue > 0 {
		prefix = idPrefix(u.Tenant, id)
	}
	key := topicKey{u.Tenant, id}
	payload := s.payload(u.Tenant, id, u.Expect+1)
	full = []any{u.Tenant, id, u.Expect, row.Snapshot, int16(row.State), row.StatusTime, row.ContextID, row.Terminal,
		u.Runner, lease, int64(0), events, int32(queue), prefix, s.opts.channel, payload,
		len(events) > 0, u.Trace.Parent, u.Trace.State}
	o = &writeOp{key: key, what: "writing task " + strconv.Quote(id), sql: s.sqlUpdateTask, args: full,
		publish: true, expect: u.Expect, task: u.Task, events: u.Events, terminal: row.Terminal, notifies: len(events) > 0}
	if _, configured = s.configured.Load(key); !configured {
		o.sql = s.sqlUpdateTaskLean
		o.args = append(full[:12:12], s.opts.channel, payload, len(events) > 0)
	}
	return o, full, configured
}

// writeUpdate runs the write o of update u until it is decided. A lean
// write that missed because the task has push configs is sent again in
// its full form (full); one whose task's configs keep changing is retried
// up to maxRetries times.
func (s *Store) writeUpdate(ctx context.Context, o *writeOp, full []any, configured bool, u store.Update, row sqlrecord.TaskRow) (int64, error) {
	for attempt := 0; ; attempt++ {
		o.args[10] = s.now()
		if err := s.w.submit(ctx, o); err != nil {
			return 0, err
		}
		if o.err != nil {
			return 0, o.err
		}
		if o.found {
			if row.Terminal && configured {
				s.configured.Delete(o.key)
			}
			s.capsAfter(o.key, row)
			return o.res[0], nil
		}
		if err := s.classify(ctx, u.Tenant, u.Task.GetId(), u.Expect); !errors.Is(err, errRetry) {
			return 0, err
		}
		if !configured { // the task has push configs: write them the deliveries
			configured = true
			s.configured.Store(o.key, struct{}{})
			o.sql, o.args = s.sqlUpdateTask, full
			continue
		}
		s.retries.Add(1)
		if attempt == maxRetries {
			return 0, fmt.Errorf("postgres store %s: writing task %q: the task's push configs keep changing", s.name, u.Task.GetId())
		}
	}
}

// classify says why a write matched no row.
func (s *Store) classify(ctx context.Context, tenant, id string, expect int64) error {
	var st sqlrecord.Stored
	var state int16
	var endedAt *int64
	err := s.pool.QueryRow(ctx, sqlTaskState, tenant, id).Scan(&st.Version, &endedAt, &state, &st.StatusTime)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
	case err != nil:
		return s.dbErr("writing task "+strconv.Quote(id)+": reading the task", err)
	default:
		st.Found, st.State, st.Ended = true, a2av1.TaskState(state), endedAt != nil
		if endedAt != nil {
			st.EndedAt = *endedAt
		}
	}
	if err := s.cut.Miss(id, st, expect, s.now()); err != nil {
		return err
	}
	return errRetry
}

// ---- ListTasks ----

var listSQLs sync.Map // sqlrecord.Shape -> string

// listSQL is the statement of a listing shape: the number of matching tasks
// and the page, in one statement (one snapshot, one round trip), both from
// the index of the shape. Arguments: $1 tenant, $2 owner, then the filters
// in the order above, the cursor (time, id), the limit.
func listSQL(shape sqlrecord.Shape) string {
	if q, ok := listSQLs.Load(shape); ok {
		return q.(string)
	}
	var w strings.Builder
	w.WriteString(`tenant = $1 AND owner = $2`)
	n := 3
	arg := func() string { n++; return "$" + strconv.Itoa(n-1) }
	if shape&sqlrecord.ByContext != 0 {
		w.WriteString(` AND context_id = ` + arg())
	}
	if shape&sqlrecord.ByState != 0 {
		w.WriteString(` AND state = ` + arg())
	}
	if shape&sqlrecord.ByUpdatedAfter != 0 {
		w.WriteString(` AND status_time >= ` + arg())
	}
	if shape&sqlrecord.ByTTL != 0 {
		w.WriteString(` AND (ended_at IS NULL OR ended_at >= ` + arg() + `)`)
	}
	if shape&sqlrecord.ByWaitTTL != 0 {
		w.WriteString(` AND NOT (state IN (6, 8) AND status_time < ` + arg() + `)`)
	}
	where := w.String()
	page := where
	if shape&sqlrecord.ByCursor != 0 {
		page += ` AND (status_time, id) < (` + arg() + `, ` + arg() + `)`
	}
	q := `SELECT c.total, t.id, t.owner, t.version, t.generation, t.snapshot, t.runner, t.lease_until
FROM (SELECT count(*) AS total FROM tasks WHERE ` + where + `) c
LEFT JOIN LATERAL (
	SELECT id, owner, version, generation, snapshot, runner, lease_until, status_time FROM tasks WHERE ` + page + `
	ORDER BY status_time DESC, id DESC LIMIT ` + arg() + `
) t ON true
ORDER BY t.status_time DESC, t.id DESC`
	listSQLs.Store(shape, q)
	return q
}

// ListTasks implements store.Tasks.
func (s *Store) ListTasks(ctx context.Context, tenant string, q store.Query) (store.Page, error) {
	if err := s.checkOpen(); err != nil {
		return store.Page{}, err
	}
	if q.Limit < 1 {
		return store.Page{}, fmt.Errorf("store: list limit %d must be positive", q.Limit)
	}
	if !store.ValidQuery(tenant, q) { // no task has such keys
		return store.Page{}, nil
	}
	l := s.cut.List(tenant, q, s.now())
	rows, err := s.pool.Query(ctx, listSQL(l.Shape), listArgs(l)...)
	if err != nil {
		return store.Page{}, s.dbErr("listing tasks", err)
	}
	defer rows.Close()
	var page store.Page
	for rows.Next() {
		var (
			total  int64
			id     *string
			rec    = store.Record{Tenant: tenant}
			owner  *string
			ver    *int64
			gen    *int64
			blob   []byte
			runner *string
			lease  *int64
		)
		if err := rows.Scan(&total, &id, &owner, &ver, &gen, &blob, &runner, &lease); err != nil {
			return store.Page{}, s.dbErr("listing tasks", err)
		}
		page.Total = int(total)
		if id == nil {
			continue
		}
		if len(page.Records) == q.Limit {
			page.More = true
			continue
		}
		if page.Records == nil {
			page.Records = make([]store.Record, 0, min(q.Limit, page.Total))
		}
		rec.Owner, rec.Version, rec.Generation, rec.Runner, rec.LeaseUntil = *owner, *ver, *gen, *runner, timeOf(lease)
		if rec.Task, err = s.names.DecodeTask(*id, rec.Generation, blob); err != nil {
			return store.Page{}, err
		}
		page.Records = append(page.Records, rec)
	}
	if err := rows.Err(); err != nil {
		return store.Page{}, s.dbErr("listing tasks", err)
	}
	if page.Records == nil {
		page.Records = []store.Record{}
	}
	return page, nil
}

// listArgs are the arguments of a listing's statement (listSQL), in order.
func listArgs(l sqlrecord.Listing) []any {
	args := make([]any, 0, 10)
	args = append(args, l.Tenant, l.Owner)
	if l.Shape&sqlrecord.ByContext != 0 {
		args = append(args, l.ContextID)
	}
	if l.Shape&sqlrecord.ByState != 0 {
		args = append(args, int16(l.State))
	}
	if l.Shape&sqlrecord.ByUpdatedAfter != 0 {
		args = append(args, l.UpdatedAfter)
	}
	if l.Shape&sqlrecord.ByTTL != 0 {
		args = append(args, l.LiveSince)
	}
	if l.Shape&sqlrecord.ByWaitTTL != 0 {
		args = append(args, l.WaitingSince)
	}
	if l.Shape&sqlrecord.ByCursor != 0 {
		args = append(args, l.CursorTime, l.CursorID)
	}
	return append(args, l.Limit)
}

// ---- Execution records ----

// RenewRuns implements store.Tasks.
func (s *Store) RenewRuns(ctx context.Context, runner string, until time.Time) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if runner == "" {
		return nil
	}
	if _, err := s.pool.Exec(ctx, sqlRenew, runner, leaseArg(until)); err != nil {
		return s.dbErr("renewing the runs of "+strconv.Quote(runner), err)
	}
	return nil
}

// StaleRuns implements store.Tasks.
func (s *Store) StaleRuns(ctx context.Context, self string, now time.Time, limit int) ([]store.Record, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	var hostPattern *string
	if host := store.RunnerHost(self); host != "" {
		p := likeEscaper.Replace(host) + "/%"
		hostPattern = &p
	}
	rows, err := s.pool.Query(ctx, sqlStaleRuns, self, sqlrecord.Nanos(now), hostPattern,
		int16(a2av1.TaskState_TASK_STATE_SUBMITTED), int16(a2av1.TaskState_TASK_STATE_WORKING))
	if err != nil {
		return nil, s.dbErr("finding stale runs", err)
	}
	defer rows.Close()
	return sqlrecord.NewStale(self, now, false).ReadStopped(s.names, rows, limit, func(err error) error {
		return s.dbErr("finding stale runs", err)
	})
}

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// TaskEvents implements store.Subscriptions: the feed's rows, which are the
// task's event log (eventlog.go).
func (s *Store) TaskEvents(ctx context.Context, tenant, id string, after, upTo int64) ([]store.LoggedEvent, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	if !store.ValidIDs(tenant, id) {
		return nil, fmt.Errorf("%w: task %q", store.ErrNotFound, id)
	}
	rows, err := s.pool.Query(ctx, sqlTaskEvents, tenant, id, after, upTo)
	if err != nil {
		return nil, s.dbErr("reading the events of task "+strconv.Quote(id), err)
	}
	defer rows.Close()
	var (
		out   []store.LoggedEvent
		found bool
	)
	for rows.Next() {
		found = true
		var (
			gen, version *int64
			blob         []byte
		)
		if err := rows.Scan(&gen, &version, &blob); err != nil {
			return nil, s.dbErr("reading the events of task "+strconv.Quote(id), err)
		}
		if gen == nil {
			continue
		}
		ev, err := s.names.DecodeEvent(id, blob)
		if err != nil {
			return nil, err
		}
		out = append(out, store.LoggedEvent{Generation: *gen, Version: *version, Response: ev})
	}
	if err := rows.Err(); err != nil {
		return nil, s.dbErr("reading the events of task "+strconv.Quote(id), err)
	}
	if !found {
		return nil, fmt.Errorf("%w: task %q", store.ErrNotFound, id)
	}
	return out, nil
}
