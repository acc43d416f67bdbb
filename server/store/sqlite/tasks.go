package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server/store"
	"github.com/a2agen/a2agen/server/store/internal/sqlrecord"
)

// leaseArg is a lease end as a column value (NULL for none).
func leaseArg(t time.Time) any {
	if n, ok := sqlrecord.Lease(t); ok {
		return n
	}
	return nil
}

// ---- CreateTask ----

type createOp struct {
	opBase
	rec     store.Record
	row     sqlrecord.TaskRow
	endedAt int64
	cfgs    sqlrecord.Configs
	events  [][]byte
	trace   store.TraceContext
}

func (o *createOp) what() string { return "creating task " + strconv.Quote(o.rec.Task.GetId()) }

// CreateTask implements store.Tasks.
// A subscriber subscribes after the creation, a read the task cache
// usually serves.
func (s *Store) CreateTask(ctx context.Context, c store.Creation) (store.Record, store.Subscription, error) {
	rec, err := s.create(ctx, c)
	return store.SubscribeCreated(s, c, rec, err)
}

func (s *Store) create(ctx context.Context, c store.Creation) (store.Record, error) {
	if err := s.checkOpen(); err != nil {
		return store.Record{}, err
	}
	nc, err := s.names.EncodeCreation(c)
	if err != nil {
		return store.Record{}, err
	}
	o := &createOp{rec: nc.Record, row: nc.Row, cfgs: nc.Configs, events: nc.Events, trace: c.Trace}
	if err := s.submit(ctx, o); err != nil {
		return store.Record{}, err
	}
	return nc.Record, nil
}

func (o *createOp) committed(c *recordCache) {
	r := o.rec
	r.LeaseUntil = sqlrecord.StoredTime(r.LeaseUntil)
	c.put(cached{rec: r, endedAt: o.endedAt, ended: o.row.Terminal, pushes: int64(len(o.cfgs.IDs))}, len(o.row.Snapshot))
}

func (o *createOp) apply(w *writer, now int64) (error, error) {
	r, id := o.rec, o.rec.Task.GetId()
	var ended any
	if o.row.Terminal {
		ended = now
		o.endedAt = now
	}
	args := []any{r.Tenant, id, r.Owner, o.row.ContextID, int64(o.row.State), o.row.StatusTime, o.row.Snapshot,
		r.Runner, leaseArg(r.LeaseUntil), ended, int64(len(o.cfgs.IDs)), r.Generation}
	if failure, err := o.insert(w, args, now); failure != nil || err != nil {
		return failure, err
	}
	if o.row.Terminal {
		o.termDelta++
		o.endsTask = true
	}
	if err := o.writeConfigs(w, now); err != nil {
		return nil, err
	}
	if w.capsOwner(o.row) {
		if err := w.capOwner(&o.opBase, r.Owner, r.Tenant, id); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// insert inserts the task's row. When the id is taken by a task past its
// TTL, the id is free again: that task goes and the row is inserted; when
// by a live task, the failure is store.ErrExists.
func (o *createOp) insert(w *writer, args []any, now int64) (failure, err error) {
	st := &w.st
	r, id := o.rec, o.rec.Task.GetId()
	res, err := st.insertTask.Exec(args...)
	if err != nil {
		return nil, dbErr("inserting the task", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return nil, dbErr("inserting the task", err)
	} else if n > 0 {
		return nil, nil
	}
	var version, state, statusTime int64
	var endedAt sql.NullInt64
	if err := st.taskState.QueryRow(r.Tenant, id).Scan(&version, &state, &endedAt, &statusTime); err != nil {
		return nil, dbErr("reading the existing task", err)
	}
	if !w.s.expired(endedAt, now) && !w.s.waitedOut(state, statusTime, now) {
		return fmt.Errorf("%w: task %q", store.ErrExists, id), nil
	}
	if _, err := st.deleteTaskConfigs.Exec(r.Tenant, id); err != nil {
		return nil, dbErr("removing the expired task's push configs", err)
	}
	if _, err := st.deleteTask.Exec(r.Tenant, id); err != nil {
		return nil, dbErr("removing the expired task", err)
	}
	if endedAt.Valid {
		o.termDelta--
	}
	if _, err := st.insertTask.Exec(args...); err != nil {
		return nil, dbErr("inserting the task", err)
	}
	return nil, nil
}

// writeConfigs inserts the new task's push configs and the deliveries of
// its events for them.
func (o *createOp) writeConfigs(w *writer, now int64) error {
	if len(o.cfgs.IDs) == 0 {
		return nil
	}
	r, id := o.rec, o.rec.Task.GetId()
	for i, cid := range o.cfgs.IDs {
		if _, err := w.st.upsertConfig.Exec(r.Tenant, id, cid, o.cfgs.Blobs[i], o.cfgs.Versions[i]); err != nil {
			return dbErr("inserting push config "+strconv.Quote(cid), err)
		}
	}
	return o.enqueue(w, r.Tenant, id, 1, o.events, o.row.Snapshot, o.trace, now)
}

// enqueue inserts the outbox rows of one write: every event for every
// push config of the task, in event order, then config id order; a config
// that wants the task (store.TaskPayload) gets snapshot, the task as
// written, with the last event.
func (b *opBase) enqueue(w *writer, tenant, taskID string, version int64, events [][]byte, snapshot []byte, trace store.TraceContext, now int64) error {
	for i, ev := range events {
		res, err := w.st.enqueue.Exec(tenant, taskID, store.DeliveryIDPrefix(tenant, taskID, version, i), ev, now, trace.Parent, trace.State,
			snapshot, i == len(events)-1)
		if err != nil {
			return dbErr("queueing deliveries", err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return dbErr("queueing deliveries", err)
		} else if n > 0 {
			b.queued = true
		}
	}
	return nil
}

// expired and waitedOut are sqlrecord.Cutoffs' for this store's columns.
func (s *Store) expired(endedAt sql.NullInt64, now int64) bool {
	return s.cut.Expired(endedAt.Int64, endedAt.Valid, now)
}

func (s *Store) waitedOut(state, statusTime, now int64) bool {
	return s.cut.WaitedOut(a2av1.TaskState(state), statusTime, now)
}

// taskWaitedOut is waitedOut for a snapshot.
func (s *Store) taskWaitedOut(t *a2av1.Task, now int64) bool {
	st := t.GetStatus()
	return s.opts.interruptedTTL > 0 && s.waitedOut(int64(st.GetState()), sqlrecord.Nanos(st.GetTimestamp().AsTime()), now)
}

// ---- Task ----

// Task implements store.Tasks.
func (s *Store) Task(ctx context.Context, tenant, id string) (store.Record, error) {
	if err := s.checkOpen(); err != nil {
		return store.Record{}, err
	}
	hit, ok, gen := s.cache.get(tenant, id)
	if ok {
		if hit.ended && s.expired(sql.NullInt64{Int64: hit.endedAt, Valid: true}, s.now()) || s.taskWaitedOut(hit.rec.Task, s.now()) {
			return store.Record{}, fmt.Errorf("%w: task %q", store.ErrNotFound, id)
		}
		return hit.rec, nil
	}
	var (
		row     = cached{rec: store.Record{Tenant: tenant}}
		rec     = &row.rec
		blob    []byte
		lease   sql.NullInt64
		endedAt sql.NullInt64
	)
	err := s.read.task.QueryRowContext(ctx, tenant, id).Scan(&rec.Owner, &rec.Version, &rec.Generation, &blob, &rec.Runner, &lease, &endedAt, &row.pushes)
	if errors.Is(err, sql.ErrNoRows) || err == nil && s.expired(endedAt, s.now()) {
		return store.Record{}, fmt.Errorf("%w: task %q", store.ErrNotFound, id)
	}
	if err != nil {
		return store.Record{}, s.readErr("reading task "+strconv.Quote(id), err)
	}
	rec.LeaseUntil = timeOf(lease)
	if rec.Task, err = s.names.DecodeTask(id, rec.Generation, blob); err != nil {
		return store.Record{}, err
	}
	if s.taskWaitedOut(rec.Task, s.now()) {
		return store.Record{}, fmt.Errorf("%w: task %q", store.ErrNotFound, id)
	}
	row.endedAt, row.ended = endedAt.Int64, endedAt.Valid
	s.cache.offer(gen, id, row, len(blob))
	return *rec, nil
}

// ---- UpdateTask ----

type updateOp struct {
	opBase
	u     store.Update
	row   sqlrecord.TaskRow
	evs   [][]byte
	lease any
	// The stored row after the write (for the cache).
	stored cached
}

func (o *updateOp) what() string { return "writing task " + strconv.Quote(o.u.Task.GetId()) }

// UpdateTask implements store.Tasks.
func (s *Store) UpdateTask(ctx context.Context, u store.Update) (int64, error) {
	if err := s.checkOpen(); err != nil {
		return 0, err
	}
	row, events, err := s.names.EncodeUpdate(u)
	if err != nil {
		return 0, err
	}
	o := &updateOp{u: u, row: row, evs: events}
	if u.Runner != "" {
		o.lease = leaseArg(u.LeaseUntil)
	}
	if err := s.submit(ctx, o); err != nil {
		return 0, err
	}
	return o.version, nil
}

func (o *updateOp) apply(w *writer, now int64) (error, error) {
	u, id := o.u, o.u.Task.GetId()
	stored, err := o.write(w, now)
	if errors.Is(err, sql.ErrNoRows) {
		return o.classify(w, now), nil
	}
	if err != nil {
		return nil, dbErr("updating the task", err)
	}
	o.version = u.Expect + 1
	stored.rec.Tenant, stored.rec.Version, stored.rec.Task = u.Tenant, o.version, u.Task
	if o.row.Terminal {
		o.termDelta, o.endsTask = 1, true
		stored.endedAt, stored.ended = now, true
	}
	o.stored = stored
	first := stored.rec.Generation - int64(len(o.evs)) + 1
	for i, ev := range o.evs {
		if _, err := w.st.logEvent.Exec(u.Tenant, id, first+int64(i), o.version, ev); err != nil {
			return nil, dbErr("logging the task's events", err)
		}
	}
	if stored.pushes > 0 && len(o.evs) > 0 {
		if err := o.enqueue(w, u.Tenant, id, o.version, o.evs, o.row.Snapshot, u.Trace, now); err != nil {
			return nil, err
		}
	}
	if w.capsOwner(o.row) {
		if err := w.capOwner(&o.opBase, stored.rec.Owner, u.Tenant, id); err != nil {
			return nil, err
		}
	}
	o.publish, o.pubTenant, o.pubTask, o.events, o.terminal = true, u.Tenant, id, u.Events, o.row.Terminal
	return nil, nil
}

// write runs the UPDATE and returns what the row holds besides the task
// (owner, execution record, push configs); sql.ErrNoRows when it matched
// nothing.
//
// When the cache holds the version the write replaces, the row is known:
// the statement assigns only the columns that change (see sqlWriteFull)
// and needs no RETURNING. Its WHERE checks every column the write takes
// from the cache, so a cache that were wrong would make it match nothing
// and fall back to sqlUpdateTask, which reads the row back.
func (o *updateOp) write(w *writer, now int64) (cached, error) {
	u := o.u
	args := make([]any, 0, 15)
	args = append(args, o.row.Snapshot, int64(o.row.State), o.row.StatusTime, o.row.ContextID, o.row.Terminal,
		u.Runner, o.lease, now, u.Tenant, u.Task.GetId(), u.Expect)
	if cur, ok := w.s.cache.peek(u.Tenant, u.Task.GetId()); ok && !cur.ended && cur.rec.Version == u.Expect {
		stmt := w.st.writeFull
		switch {
		case o.row.Terminal, u.Runner != "" && u.Runner != cur.rec.Runner, cur.rec.Task.GetContextId() != o.row.ContextID:
		case cur.rec.Task.GetStatus().GetState() == o.row.State && sqlrecord.Nanos(cur.rec.Task.GetStatus().GetTimestamp().AsTime()) == o.row.StatusTime:
			stmt = w.st.writeSnapshot
		default:
			stmt = w.st.writeStatus
		}
		res, err := stmt.Exec(append(args, cur.rec.Owner, cur.rec.Runner, leaseArg(cur.rec.LeaseUntil), cur.pushes, len(u.Events))...)
		if err != nil {
			return cached{}, err
		}
		if n, err := res.RowsAffected(); err != nil {
			return cached{}, err
		} else if n == 1 {
			next := cached{rec: store.Record{Owner: cur.rec.Owner, Generation: store.NextGeneration(cur.rec.Generation, len(u.Events)),
				Runner: cur.rec.Runner, LeaseUntil: cur.rec.LeaseUntil}, pushes: cur.pushes}
			switch {
			case o.row.Terminal:
				next.rec.Runner, next.rec.LeaseUntil = "", time.Time{}
			case u.Runner != "":
				next.rec.Runner, next.rec.LeaseUntil = u.Runner, sqlrecord.StoredTime(u.LeaseUntil)
			}
			return next, nil
		}
	}
	var next cached
	var lease sql.NullInt64
	err := w.st.updateTask.QueryRow(append(args, len(u.Events))...).Scan(&next.pushes, &next.rec.Owner, &next.rec.Runner, &lease, &next.rec.Generation)
	next.rec.LeaseUntil = timeOf(lease)
	return next, err
}

func (o *updateOp) committed(c *recordCache) { c.put(o.stored, len(o.row.Snapshot)) }

// classify says why the update matched no row.
func (o *updateOp) classify(w *writer, now int64) error {
	id := o.u.Task.GetId()
	var st sqlrecord.Stored
	var state int64
	var endedAt sql.NullInt64
	err := w.st.taskState.QueryRow(o.u.Tenant, id).Scan(&st.Version, &state, &endedAt, &st.StatusTime)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return fmt.Errorf("sqlite store %s: writing task %q: reading the task: %w", w.s.path, id, err)
	default:
		st.Found, st.State, st.EndedAt, st.Ended = true, a2av1.TaskState(state), endedAt.Int64, endedAt.Valid
	}
	if err := w.s.cut.Miss(id, st, o.u.Expect, now); err != nil {
		return err
	}
	return fmt.Errorf("sqlite store %s: writing task %q: the write matched no row", w.s.path, id)
}

// ---- ListTasks ----

type listStmt struct {
	count, page *sql.Stmt
	countArgs   int // how many of the arguments (listArgs) the count takes
}

const taskColumns = `id, owner, version, generation, snapshot, runner, lease_until`

// The arguments of every listing statement, by number (listArgs).
const (
	argTenant = iota + 1
	argOwner
	argContext
	argState
	argUpdatedAfter
	argLiveSince
	argWaitingSince
	argCursorTime
	argCursorID
	argLimit
)

// listFilters is the WHERE clause of a listing shape, without the cursor.
func listFilters(shape sqlrecord.Shape) string {
	var w strings.Builder
	w.WriteString(`tenant = ?1 AND owner = ?2`)
	if shape&sqlrecord.ByContext != 0 {
		w.WriteString(` AND context_id = ?3`)
	}
	if shape&sqlrecord.ByState != 0 {
		w.WriteString(` AND state = ?4`)
	}
	if shape&sqlrecord.ByUpdatedAfter != 0 {
		w.WriteString(` AND status_time >= ?5`)
	}
	return w.String()
}

// listSQL builds the statements of a listing shape (arguments by number,
// listArgs) and says how many arguments the count takes.
//
// The page walks, from its cursor, the index of the tasks the filters
// select — tasks_by_context with a context, else tasks_by_time (the
// owner's) — so it reads Limit+1 entries plus those it skips: tasks past
// their TTL that retention has not removed yet and, with a state filter,
// the tasks of the owner (or context) in other states.
//
// The count (totalSize) of a listing by owner or by context reads the
// counts the triggers of migration 5 keep, and subtracts the tasks past
// their TTL not removed yet (few: the sweep runs every second), found
// through the retention indexes: O(log n), not O(tasks). With a state or
// UpdatedAfter, it counts the entries of the range in the listing index
// instead (index only): the owner's or context's tasks, those updated
// since.
func listSQL(shape sqlrecord.Shape) (count, page string, countArgs int) {
	filters := listFilters(shape)
	live := ``
	if shape&sqlrecord.ByTTL != 0 {
		live += ` AND (ended_at IS NULL OR ended_at >= ?6)`
	}
	if shape&sqlrecord.ByWaitTTL != 0 {
		live += ` AND NOT (state IN (6, 8) AND status_time < ?7)`
	}
	from := `tasks`
	if shape&sqlrecord.ByContext != 0 {
		// With a state too, SQLite might take tasks_by_time: the owner's
		// tasks (for an anonymous caller, everyone's).
		from = `tasks INDEXED BY tasks_by_context`
	}
	countArgs = argOwner
	for _, f := range []struct {
		bit sqlrecord.Shape
		arg int
	}{{sqlrecord.ByContext, argContext}, {sqlrecord.ByState, argState}, {sqlrecord.ByUpdatedAfter, argUpdatedAfter}, {sqlrecord.ByTTL, argLiveSince}, {sqlrecord.ByWaitTTL, argWaitingSince}} {
		if shape&f.bit != 0 {
			countArgs = f.arg
		}
	}
	if shape&(sqlrecord.ByUpdatedAfter|sqlrecord.ByState) != 0 {
		count = `SELECT COUNT(*) FROM ` + from + ` WHERE ` + filters + live
	} else {
		count = `SELECT COALESCE((SELECT n FROM task_counts WHERE tenant = ?1 AND owner = ?2), 0)`
		if shape&sqlrecord.ByContext != 0 {
			count = `SELECT COALESCE((SELECT n FROM context_counts WHERE tenant = ?1 AND owner = ?2 AND context_id = ?3), 0)`
		}
		if shape&sqlrecord.ByTTL != 0 {
			count += ` - (SELECT COUNT(*) FROM tasks INDEXED BY tasks_by_end WHERE ended_at < ?6 AND ` + filters + `)`
		}
		if shape&sqlrecord.ByWaitTTL != 0 {
			count += ` - (SELECT COUNT(*) FROM tasks INDEXED BY tasks_waiting WHERE state IN (6, 8) AND status_time < ?7 AND ` + filters + `)`
		}
	}
	where := filters + live
	if shape&sqlrecord.ByCursor != 0 {
		where += ` AND (status_time < ?8 OR (status_time = ?8 AND id < ?9))`
	}
	page = `SELECT ` + taskColumns + ` FROM ` + from + ` WHERE ` + where + ` ORDER BY status_time DESC, id DESC LIMIT ?10`
	return count, page, countArgs
}

func (s *Store) listStatements(ctx context.Context, shape sqlrecord.Shape) (*listStmt, error) {
	s.listMu.Lock()
	defer s.listMu.Unlock()
	if s.listStmts == nil {
		return nil, store.ErrClosed
	}
	if st := s.listStmts[shape]; st != nil {
		return st, nil
	}
	countSQL, pageSQL, countArgs := listSQL(shape)
	count, err := s.rdb.PrepareContext(ctx, countSQL)
	if err != nil {
		return nil, err
	}
	page, err := s.rdb.PrepareContext(ctx, pageSQL)
	if err != nil {
		count.Close()
		return nil, err
	}
	st := &listStmt{count: count, page: page, countArgs: countArgs}
	s.listStmts[shape] = st
	return st, nil
}

// listArgs gives the shape of a listing and its arguments, by number
// (argTenant…argLimit; those of filters it does not use are bound but
// unused).
func (s *Store) listArgs(tenant string, q store.Query) (sqlrecord.Shape, []any) {
	l := s.cut.List(tenant, q, s.now())
	return l.Shape, []any{l.Tenant, l.Owner, l.ContextID, int64(l.State), l.UpdatedAfter,
		l.LiveSince, l.WaitingSince, l.CursorTime, l.CursorID, l.Limit}
}

// ListTasks implements store.Tasks.
func (s *Store) ListTasks(ctx context.Context, tenant string, q store.Query) (store.Page, error) {
	if err := s.checkOpen(); err != nil {
		return store.Page{}, err
	}
	if q.Limit < 1 {
		return store.Page{}, fmt.Errorf("store: list limit %d must be positive", q.Limit)
	}
	shape, args := s.listArgs(tenant, q)
	st, err := s.listStatements(ctx, shape)
	if err != nil {
		return store.Page{}, s.readErr("listing tasks", err)
	}
	// One read transaction: the count and the page see the same data.
	tx, err := s.rdb.BeginTx(ctx, nil)
	if err != nil {
		return store.Page{}, s.readErr("listing tasks", err)
	}
	defer tx.Rollback()
	var page store.Page
	if err := tx.StmtContext(ctx, st.count).QueryRowContext(ctx, args[:st.countArgs]...).Scan(&page.Total); err != nil {
		return store.Page{}, s.readErr("counting tasks", err)
	}
	rows, err := tx.StmtContext(ctx, st.page).QueryContext(ctx, args...)
	if err != nil {
		return store.Page{}, s.readErr("listing tasks", err)
	}
	defer rows.Close()
	page.Records = make([]store.Record, 0, min(q.Limit, page.Total))
	for rows.Next() {
		if len(page.Records) == q.Limit {
			page.More = true
			break
		}
		rec, err := s.scanTask(rows, tenant)
		if err != nil {
			return store.Page{}, err
		}
		page.Records = append(page.Records, rec)
	}
	if err := rows.Err(); err != nil {
		return store.Page{}, s.readErr("listing tasks", err)
	}
	return page, nil
}

// scanTask reads a row of taskColumns.
func (s *Store) scanTask(rows *sql.Rows, tenant string) (store.Record, error) {
	rec := store.Record{Tenant: tenant}
	var (
		id    string
		blob  []byte
		lease sql.NullInt64
	)
	if err := rows.Scan(&id, &rec.Owner, &rec.Version, &rec.Generation, &blob, &rec.Runner, &lease); err != nil {
		return store.Record{}, s.readErr("reading a task", err)
	}
	rec.LeaseUntil = timeOf(lease)
	var err error
	rec.Task, err = s.names.DecodeTask(id, rec.Generation, blob)
	return rec, err
}

// ---- Execution records ----

type renewOp struct {
	opBase
	runner  string
	until   any
	renewed []cacheKey
}

func (o *renewOp) what() string { return "renewing the runs of " + strconv.Quote(o.runner) }

// RenewRuns implements store.Tasks.
func (s *Store) RenewRuns(ctx context.Context, runner string, until time.Time) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if runner == "" {
		return nil
	}
	return s.submit(ctx, &renewOp{runner: runner, until: leaseArg(until)})
}

func (o *renewOp) apply(w *writer, _ int64) (error, error) {
	rows, err := w.st.renew.Query(o.runner, o.until)
	if err != nil {
		return nil, dbErr("renewing leases", err)
	}
	defer rows.Close()
	o.renewed = o.renewed[:0]
	for rows.Next() {
		var k cacheKey
		if err := rows.Scan(&k.tenant, &k.id); err != nil {
			return nil, dbErr("renewing leases", err)
		}
		o.renewed = append(o.renewed, k)
	}
	if err := rows.Err(); err != nil {
		return nil, dbErr("renewing leases", err)
	}
	return nil, nil
}

func (o *renewOp) committed(c *recordCache) {
	var until time.Time
	if n, ok := o.until.(int64); ok {
		until = time.Unix(0, n)
	}
	for _, k := range o.renewed {
		c.change(k.tenant, k.id, func(v *cached) { v.rec.LeaseUntil = until })
	}
}

// StaleRuns implements store.Tasks.
func (s *Store) StaleRuns(ctx context.Context, self string, now time.Time, limit int) ([]store.Record, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	// Candidates: runners whose lease ended, and those that may be gone
	// although their lease runs: on this host (RunnerGone checks), or, with
	// the lock held, any other process's — only one process can hold the
	// database, so theirs ended (a container restarted with a new pid
	// namespace, say), and their tasks need not wait for the lease.
	var hostPattern any
	if s.lock != nil {
		hostPattern = "%"
	} else if host := store.RunnerHost(self); host != "" {
		hostPattern = likeEscaper.Replace(host) + "/%"
	}
	rows, err := s.read.staleRuns.QueryContext(ctx, self, sqlrecord.Nanos(now), hostPattern,
		int64(a2av1.TaskState_TASK_STATE_SUBMITTED), int64(a2av1.TaskState_TASK_STATE_WORKING))
	if err != nil {
		return nil, s.readErr("finding stale runs", err)
	}
	defer rows.Close()
	return sqlrecord.NewStale(self, now, s.lock != nil).ReadStopped(s.names, rows, limit, func(err error) error {
		return s.readErr("finding stale runs", err)
	})
}

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// ---- Subscriptions ----

// TaskEvents implements store.Subscriptions.
func (s *Store) TaskEvents(ctx context.Context, tenant, id string, after, upTo int64) ([]store.LoggedEvent, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	rows, err := s.read.events.QueryContext(ctx, tenant, id, after, upTo)
	if err != nil {
		return nil, s.readErr("reading the events of task "+strconv.Quote(id), err)
	}
	defer rows.Close()
	var (
		out   []store.LoggedEvent
		found bool
	)
	for rows.Next() {
		found = true
		var (
			gen, version sql.NullInt64
			blob         []byte
		)
		if err := rows.Scan(&gen, &version, &blob); err != nil {
			return nil, s.readErr("reading the events of task "+strconv.Quote(id), err)
		}
		if !gen.Valid {
			continue
		}
		ev, err := s.names.DecodeEvent(id, blob)
		if err != nil {
			return nil, err
		}
		out = append(out, store.LoggedEvent{Generation: gen.Int64, Version: version.Int64, Response: ev})
	}
	if err := rows.Err(); err != nil {
		return nil, s.readErr("reading the events of task "+strconv.Quote(id), err)
	}
	if !found {
		return nil, fmt.Errorf("%w: task %q", store.ErrNotFound, id)
	}
	return out, nil
}

// Subscribe implements store.Subscriptions.
func (s *Store) Subscribe(ctx context.Context, tenant, id string, f store.Follow) (store.Record, store.Subscription, error) {
	if err := s.checkOpen(); err != nil {
		return store.Record{}, nil, err
	}
	return s.broker.Subscribe(ctx, tenant, id, f, func(ctx context.Context) (store.Record, error) { return s.Task(ctx, tenant, id) })
}
