package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
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
// may never come and the WAL would grow; when it holds more than
// walRestartAt pages, the writer runs a RESTART checkpoint itself, between
// two transactions, which copies only what the last passive checkpoint
// left (its fsyncs are small) and makes the next transaction start the WAL
// over.

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
	// walPages is the WAL's length in pages at the end of the last
	// checkpoint (0 after the writer restarted the WAL).
	walPages atomic.Int64
	// checkpoints counts the checkpoints made (tests).
	checkpoints atomic.Int64
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
		if err != nil {
			if !s.closed.Load() {
				s.opts.logger.Error("sqlite store: checkpoint failed", "path", s.path, "err", err)
			}
			continue
		}
		c.walPages.Store(log)
		c.checkpoints.Add(1)
	}
}

// walAppended is called by the writer after each transaction: it counts
// the pages the transaction appended to the WAL, wakes the checkpointer
// every checkpointEvery pages, and restarts a WAL grown past walRestartAt.
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
	w.walPending += pages
	if w.walPending >= checkpointEvery {
		w.walPending = 0
		select {
		case c.kick <- struct{}{}:
		default:
		}
	}
	if c.walPages.Load() > walRestartAt {
		var busy, log, copied int64
		err := w.conn.QueryRowContext(context.Background(), "PRAGMA wal_checkpoint(RESTART)").Scan(&busy, &log, &copied)
		switch {
		case err == nil && busy == 0:
			c.walPages.Store(0)
		case err != nil && !isBusy(err):
			w.s.opts.logger.Error("sqlite store: restarting the WAL failed", "path", w.s.path, "err", err)
		}
		// Busy (the checkpointer is running, or a reader holds an old
		// snapshot): try again after the next transaction.
	}
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
