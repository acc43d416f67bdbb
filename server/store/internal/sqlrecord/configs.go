package sqlrecord

import "github.com/a2agen/a2agen/server/store"

// Rows is what the results of both drivers offer (database/sql's *Rows,
// pgx's Rows).
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
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
