package sqlite

import (
	"context"
	"time"

	"github.com/a2agen/a2agen/server/store"
)

// The claims of send keys (store.SendKeys), written by the writer like the
// tasks: a claim reads and writes in one transaction of the only writer,
// so of two racing claims the second sees the first.

const (
	// ?1 tenant, ?2 owner, ?3 key.
	sqlSendKey = `SELECT task_id, fingerprint, claimed, until FROM send_keys WHERE tenant = ?1 AND owner = ?2 AND key = ?3`
	// ?1…?3 as sqlSendKey, ?4 task id, ?5 fingerprint, ?6 claimed, ?7 until,
	// ?8 the task whose claim may be taken over ('': none). It claims the
	// key unless a claim holds (one row changed), in one statement: the
	// holding claim is read only when there is one.
	sqlClaimSendKey = `INSERT INTO send_keys (tenant, owner, key, task_id, fingerprint, claimed, until) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
ON CONFLICT (tenant, owner, key) DO UPDATE SET task_id = excluded.task_id, fingerprint = excluded.fingerprint,
	claimed = excluded.claimed, until = excluded.until
WHERE send_keys.until <= excluded.claimed OR (?8 <> '' AND send_keys.task_id = ?8)`
	// ?1…?3 as sqlSendKey, ?4 task id.
	sqlReleaseSendKey = `DELETE FROM send_keys WHERE tenant = ?1 AND owner = ?2 AND key = ?3 AND task_id = ?4`
	// ?1 now.
	sqlPurgeSendKeys = `DELETE FROM send_keys WHERE until <= ?1`
)

// purgeEvery is how often (in claims) the writer removes the claims that
// ended.
const purgeEvery = 256

type sendKeyClaimOp struct {
	opBase
	k       store.SendKey
	replace string
	held    store.SendKey
	claimed bool
}

func (o *sendKeyClaimOp) what() string { return "claiming send key " + o.k.Key }

func (o *sendKeyClaimOp) committed(*recordCache) {}

// ClaimSendKey implements store.SendKeys.
func (s *Store) ClaimSendKey(ctx context.Context, k store.SendKey, replace string) (store.SendKey, bool, error) {
	if err := s.checkOpen(); err != nil {
		return store.SendKey{}, false, err
	}
	if err := store.CheckSendKey(k); err != nil {
		return store.SendKey{}, false, err
	}
	o := &sendKeyClaimOp{k: k, replace: replace}
	if err := s.submit(ctx, o); err != nil {
		return store.SendKey{}, false, err
	}
	return o.held, o.claimed, nil
}

func (o *sendKeyClaimOp) apply(w *writer, _ int64) (error, error) {
	k := o.k
	res, err := w.st.claimSendKey.Exec(k.Tenant, k.Owner, k.Key, k.TaskID, k.Fingerprint, k.Claimed.UnixNano(), k.Until.UnixNano(), o.replace)
	if err != nil {
		return nil, dbErr("claiming the send key", err)
	}
	changed, err := res.RowsAffected()
	if err != nil {
		return nil, dbErr("claiming the send key", err)
	}
	if changed == 0 { // a claim holds
		o.held, o.claimed = store.SendKey{Tenant: k.Tenant, Owner: k.Owner, Key: k.Key}, false
		var claimed, until int64
		if err := w.st.sendKey.QueryRow(k.Tenant, k.Owner, k.Key).Scan(&o.held.TaskID, &o.held.Fingerprint, &claimed, &until); err != nil {
			return nil, dbErr("reading the send key", err)
		}
		o.held.Claimed, o.held.Until = time.Unix(0, claimed).UTC(), time.Unix(0, until).UTC()
		return nil, nil
	}
	o.held, o.claimed = k, true
	if w.claims++; w.claims%purgeEvery == 0 {
		if _, err := w.st.purgeSendKeys.Exec(k.Claimed.UnixNano()); err != nil {
			return nil, dbErr("removing the send keys that ended", err)
		}
	}
	return nil, nil
}

type sendKeyReleaseOp struct {
	opBase
	tenant, owner, key, taskID string
}

func (o *sendKeyReleaseOp) what() string { return "releasing send key " + o.key }

func (o *sendKeyReleaseOp) committed(*recordCache) {}

// ReleaseSendKey implements store.SendKeys.
func (s *Store) ReleaseSendKey(ctx context.Context, tenant, owner, key, taskID string) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	return s.submit(ctx, &sendKeyReleaseOp{tenant: tenant, owner: owner, key: key, taskID: taskID})
}

func (o *sendKeyReleaseOp) apply(w *writer, _ int64) (error, error) {
	if _, err := w.st.releaseSendKey.Exec(o.tenant, o.owner, o.key, o.taskID); err != nil {
		return nil, dbErr("releasing the send key", err)
	}
	return nil, nil
}
