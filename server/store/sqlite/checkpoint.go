package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"

	sqlitedrv "modernc.org/sqlite"
)

// Checkpoints. A commit in WAL mode appends pages to the WAL; a checkpoint
// copies them into the database file and syncs both files (the only
// fsyncs with synchronous=normal). SQLite's automatic checkpoint runs in
// the connection that commits, every 1000 pages: in the writer, which then
// holds up every write queued behind it for the copy and the two fsyncs.
// So the writer's automatic checkpoints are off, and a checkpointer
// goroutine with its own connection runs a PASSIVE checkpoint (which never
// blocks the writer) whenever the writer has appended checkpointEvery pages
// since the last one.
//
// SQLite starts the WAL over from its beginning when a write transaction
// begins while every page of the WAL has been copied. Under a steady load
// the writer appends pages while the checkpointer copies, so that moment
// may never come and the WAL would grow. So once the writer has appended
// walRestartAt pages since it last restarted the WAL, it stops waking the
// checkpointer and runs a RESTART checkpoint itself, between two
// transactions: it copies only what the last passive checkpoint left (its
// fsyncs are small) and makes the next transaction start the WAL over. It
// runs with no busy timeout, so that a reader still reading the WAL (or the
// checkpointer still at work) makes it give up at once rather than hold up
// the writes; the writer tries again after a few more pages.

// checkpointEvery is how many pages the writer appends to the WAL between
// two checkpoints (SQLite's default for its automatic checkpoints).
const checkpointEvery = 1000

// walRestartAt is the WAL length (pages) beyond which the writer restarts
// the WAL itself.
const walRestartAt = 4 * checkpointEvery

type checkpointer struct {
	db   *sql.DB
	conn *sql.Conn
	kick chan struct{}
	quit chan struct{}
	done chan struct{}
	// checkpoints and restarts count the checkpoints made and the times
	// the writer restarted the WAL; walPages is what the writer appended
	// to the WAL since it last restarted it (tests).
	checkpoints, restarts, walPages atomic.Int64
}

// run is the checkpointer goroutine.
func (c *checkpointer) run(s *Store) {
	defer close(c.done)
	for {
		select {
		case <-c.quit:
			return
		case <-c.kick:
		}
		var busy, log, copied int64
		err := c.conn.QueryRowContext(context.Background(), "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &log, &copied)
		switch {
		case err == nil:
			c.checkpoints.Add(1)
		case isBusy(err):
			// The writer is restarting the WAL, or another process
			// checkpoints: the next kick tries again.
		case !s.closed.Load():
			s.opts.logger.Error("sqlite store: checkpoint failed", "path", s.path, "err", err)
		}
	}
}

// walAppended is called by the writer after each transaction: it counts
// the pages the transaction appended to the WAL, wakes the checkpointer
// every checkpointEvery pages, and restarts the WAL once it has appended
// walRestartAt pages since the last restart. (SQLite may have started the
// WAL over by itself meanwhile, when a checkpoint caught up; the restart
// then finds nothing to copy.)
func (w *writer) walAppended() {
	c := w.s.ckpt
	if c == nil {
		return
	}
	var pages int
	err := w.conn.Raw(func(dc any) error {
		st, ok := dc.(interface {
			Status(sqlitedrv.DBStatusOp, bool) (int, int, error)
		})
		if !ok {
			return fmt.Errorf("the driver's connection %T reports no status", dc)
		}
		var err error
		pages, _, err = st.Status(sqlitedrv.DBStatusCacheWrite, true)
		return err
	})
	if err != nil {
		pages = checkpointEvery // checkpoint anyway
	}
	w.walTotal += int64(pages)
	w.walPending += pages
	w.sinceRestart += int64(pages)
	c.walPages.Store(w.sinceRestart)
	// While the WAL is to be restarted, the checkpointer rests: a restart
	// cannot run during a checkpoint.
	restart := w.sinceRestart > walRestartAt
	if w.walPending >= checkpointEvery && !restart {
		w.walPending = 0
		select {
		case c.kick <- struct{}{}:
		default:
		}
	}
	if restart && w.walTotal >= w.restartAfter {
		w.restartWAL()
	}
}

// restartWAL runs a RESTART checkpoint on the writer's connection without
// waiting for anyone: when the checkpointer is at work or a reader still
// reads pages of the WAL, it gives up, and the writer tries again once it
// has appended some more pages.
func (w *writer) restartWAL() {
	ctx := context.Background()
	if _, err := w.conn.ExecContext(ctx, "PRAGMA busy_timeout = 0"); err != nil {
		w.s.opts.logger.Error("sqlite store: restarting the WAL failed", "path", w.s.path, "err", err)
		return
	}
	var busy, log, copied int64
	err := w.conn.QueryRowContext(ctx, "PRAGMA wal_checkpoint(RESTART)").Scan(&busy, &log, &copied)
	if _, rerr := w.conn.ExecContext(ctx, "PRAGMA busy_timeout = "+strconv.FormatInt(w.s.opts.busyTimeout.Milliseconds(), 10)); rerr != nil {
		err = errors.Join(err, rerr)
	}
	switch {
	case err == nil && busy == 0:
		w.sinceRestart, w.walPending = 0, 0
		w.s.ckpt.walPages.Store(0)
		w.s.ckpt.restarts.Add(1)
		return
	case err != nil && !isBusy(err):
		w.s.opts.logger.Error("sqlite store: restarting the WAL failed", "path", w.s.path, "err", err)
	}
	w.restartAfter = w.walTotal + checkpointEvery/10
}

// isBusy reports whether err is SQLITE_BUSY or SQLITE_LOCKED.
func isBusy(err error) bool {
	var e *sqlitedrv.Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Code() & 0xff {
	case 5, 6:
		return true
	}
	return false
}
