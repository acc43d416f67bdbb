package sqlite

// A send key's claim is answered as soon as the writer has applied it,
// before its transaction commits, and the writes that come in while the
// writer yields right after (most often the task the claim was for) join
// that transaction: a keyed send then waits for one commit, not two, and
// shares it (docs/performance.md: about 9,000 instructions fewer per
// BenchmarkSendMessageSQLite send, 10 writes per transaction instead of 6).
//
// Why it keeps the claims' guarantee (store.SendKeys; docs/storage.md,
// "Idempotency keys"):
//
//   - The writer is the only one that writes, and applies every write in
//     order on one connection: a claim applied is seen by every later
//     claim, committed or not, so of two racing claims the second still
//     sees the first.
//   - Whatever a send writes after its claim (its task, its message) is
//     written by the same writer later, so it commits with the claim or
//     after it: a crash never keeps a send's task without its claim. A crash
//     before the commit loses the claim and the send's task together, as if
//     the send had not reached the store; a retry then sends anew. The agent
//     may have started on the message meanwhile: the retry after the restart
//     runs it again at once, where a claim committed before the crash would
//     have been answered "still creating its task" until the run lease ended
//     and then taken over, the agent run again too.
//   - A transaction that rolls back after claims were answered (a database
//     error) cannot take the answers back: the claims are owed, and the next
//     transaction writes them first, as they were answered (a plain upsert:
//     the writer decided them already), before any other write. If that
//     transaction fails too they stay owed; while they are, every write
//     fails with the database's error.

const (
	// ?1…?7 as sqlClaimSendKey: the claim, whatever holds.
	sqlOweSendKey = `INSERT INTO send_keys (tenant, owner, key, task_id, fingerprint, claimed, until) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
ON CONFLICT (tenant, owner, key) DO UPDATE SET task_id = excluded.task_id, fingerprint = excluded.fingerprint,
	claimed = excluded.claimed, until = excluded.until`
)

// answerClaim answers claim c, applied in the open transaction: its caller
// goes on now. A claim it won is remembered until the commit (owe).
func (w *writer) answerClaim(c *sendKeyClaimOp) {
	b := c.base()
	if c.claimed {
		w.answered = append(w.answered, c.k)
	}
	b.answered = true
	close(b.done)
}

// owe keeps the claims answered in a transaction that rolled back, for the
// next one (payOwed).
func (w *writer) owe() {
	w.owed = append(w.owed, w.answered...)
	w.answered = w.answered[:0]
}

// payOwed writes the claims owed, first in the open transaction.
func (w *writer) payOwed() error {
	for _, k := range w.owed {
		if _, err := w.st.oweSendKey.Exec(k.Tenant, k.Owner, k.Key, k.TaskID, k.Fingerprint, k.Claimed.UnixNano(), k.Until.UnixNano()); err != nil {
			return dbErr("writing the send keys claimed in a transaction that rolled back", err)
		}
	}
	w.answered = append(w.answered, w.owed...)
	w.owed = w.owed[:0]
	return nil
}

// unanswered is the operations of batch not answered yet.
func unanswered(batch []writeOp) []writeOp {
	rest := make([]writeOp, 0, len(batch))
	for _, o := range batch {
		if !o.base().answered {
			rest = append(rest, o)
		}
	}
	return rest
}

// join takes into the open transaction, when batch answered claims, the
// writes queued while the writer yields, and applies them; it returns the
// batch with them and applyAll's results over all of it.
func (w *writer) join(batch []writeOp, terminal int64, ended bool, now int64) (_ []writeOp, _ int64, _, ok bool) {
	if len(w.answered) == 0 {
		return batch, terminal, ended, true
	}
	n := len(batch)
	yield()
	if batch = w.takeQueued(batch); len(batch) == n {
		return batch, terminal, ended, true
	}
	terminal, joinedEnded, ok := w.applyAll(batch, n, terminal, now)
	return batch, terminal, ended || joinedEnded, ok
}
