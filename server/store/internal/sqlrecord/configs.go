package sqlrecord

import (
	"errors"
	"fmt"

	"github.com/a2agen/a2agen/server/store"
)

// Rows is what the results of both drivers offer (database/sql's *Rows,
// pgx's Rows).
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// Row is what a query of one row of both drivers offers (database/sql's
// *Row, pgx's Row).
type Row interface {
	Scan(dest ...any) error
}

// ReadConfig reads push config id of task taskID from a row of (snapshot,
// protocol version): store.ErrNotFound when the query found no row (noRows
// is the driver's error for that), another failed read as fail makes it
// of what was read and the driver's error.
func (n Names) ReadConfig(row Row, noRows error, taskID, id string, fail func(what string, err error) error) (store.PushConfig, error) {
	var blob []byte
	var version string
	err := row.Scan(&blob, &version)
	if errors.Is(err, noRows) {
		return store.PushConfig{}, fmt.Errorf("%w: push config %q of task %q", store.ErrNotFound, id, taskID)
	}
	if err != nil {
		return store.PushConfig{}, fail(fmt.Sprintf("reading push config %q of task %q", id, taskID), err)
	}
	cfg, err := n.DecodeConfig(blob)
	return store.PushConfig{TaskPushNotificationConfig: cfg, ProtocolVersion: version}, err
}

// ReadConfigs reads the push configs of a listing whose rows are (snapshot,
// protocol version), at most limit (limit <= 0: all) and whether more
// follow. A failed read is returned as the driver's error, wrapped by fail.
func (n Names) ReadConfigs(rows Rows, limit int, fail func(error) error) ([]store.PushConfig, bool, error) {
	var out []store.PushConfig
	for rows.Next() {
		if limit > 0 && len(out) == limit {
			return out, true, nil
		}
		var blob []byte
		var version string
		if err := rows.Scan(&blob, &version); err != nil {
			return nil, false, fail(err)
		}
		cfg, err := n.DecodeConfig(blob)
		if err != nil {
			return nil, false, err
		}
		out = append(out, store.PushConfig{TaskPushNotificationConfig: cfg, ProtocolVersion: version})
	}
	if err := rows.Err(); err != nil {
		return nil, false, fail(err)
	}
	return out, false, nil
}
