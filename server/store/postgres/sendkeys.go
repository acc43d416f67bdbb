package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/a2agen/a2agen/server/store"
)

// The claims of send keys (store.SendKeys). A claim is one statement: it
// inserts the claim, or replaces one that ended (or the one it takes
// over), and returns a row only when it did; PostgreSQL makes a second
// claimer of the key wait for the first one's transaction and then see its
// row, so of racing claims, on any replica, exactly one wins.

const (
	// $1 tenant, $2 owner, $3 key, $4 task id, $5 fingerprint, $6 claimed,
	// $7 until (unix nanoseconds), $8 the task id of a claim to take over
	// ('' none).
	sqlClaimSendKey = `INSERT INTO send_keys AS k (tenant, owner, key, task_id, fingerprint, claimed, until)
VALUES ($1, $2, $3, $4, $5, $6, $7)
ON CONFLICT (tenant, owner, key) DO UPDATE SET task_id = EXCLUDED.task_id, fingerprint = EXCLUDED.fingerprint,
	claimed = EXCLUDED.claimed, until = EXCLUDED.until
WHERE k.until <= EXCLUDED.claimed OR k.task_id = $8
RETURNING 1`

	sqlSendKey = `SELECT task_id, fingerprint, claimed, until FROM send_keys WHERE tenant = $1 AND owner = $2 AND key = $3`

	sqlReleaseSendKey = `DELETE FROM send_keys WHERE tenant = $1 AND owner = $2 AND key = $3 AND task_id = $4`

	sqlPurgeSendKeys = `DELETE FROM send_keys WHERE until <= $1`
)

// purgeEvery is how often (in claims by this store) the claims that ended
// are removed.
const purgeEvery = 256

// ClaimSendKey implements store.SendKeys.
func (s *Store) ClaimSendKey(ctx context.Context, k store.SendKey, replace string) (store.SendKey, bool, error) {
	if err := s.checkOpen(); err != nil {
		return store.SendKey{}, false, err
	}
	if err := store.CheckSendKey(k); err != nil {
		return store.SendKey{}, false, err
	}
	if s.sendKeyClaims.Add(1)%purgeEvery == 0 {
		if _, err := s.pool.Exec(ctx, sqlPurgeSendKeys, k.Claimed.UnixNano()); err != nil {
			return store.SendKey{}, false, s.dbErr("removing the send keys that ended", err)
		}
	}
	for attempt := 0; ; attempt++ {
		var one int
		err := s.pool.QueryRow(ctx, sqlClaimSendKey, k.Tenant, k.Owner, k.Key, k.TaskID, k.Fingerprint,
			k.Claimed.UnixNano(), k.Until.UnixNano(), replace).Scan(&one)
		if err == nil {
			return k, true, nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return store.SendKey{}, false, s.dbErr("claiming a send key", err)
		}
		held := store.SendKey{Tenant: k.Tenant, Owner: k.Owner, Key: k.Key}
		var claimed, until int64
		err = s.pool.QueryRow(ctx, sqlSendKey, k.Tenant, k.Owner, k.Key).Scan(&held.TaskID, &held.Fingerprint, &claimed, &until)
		switch {
		case err == nil:
			held.Claimed, held.Until = time.Unix(0, claimed).UTC(), time.Unix(0, until).UTC()
			return held, false, nil
		case !errors.Is(err, pgx.ErrNoRows):
			return store.SendKey{}, false, s.dbErr("reading a send key", err)
		case attempt == maxRetries: // released each time in between
			return store.SendKey{}, false, s.dbErr("claiming a send key", errors.New("the claim keeps being released"))
		}
	}
}

// ReleaseSendKey implements store.SendKeys.
func (s *Store) ReleaseSendKey(ctx context.Context, tenant, owner, key, taskID string) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if store.KeyProblem(tenant+owner+key+taskID, 1<<20) != "" { // no such claim can exist
		return nil
	}
	if _, err := s.pool.Exec(ctx, sqlReleaseSendKey, tenant, owner, key, taskID); err != nil {
		return s.dbErr("releasing a send key", err)
	}
	return nil
}
