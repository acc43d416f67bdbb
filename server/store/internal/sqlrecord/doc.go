// Package sqlrecord is what the SQLite and PostgreSQL stores share about
// their rows, so that each keeps only its dialect (statements, placeholders,
// driver, transactions):
//
//   - the row codec (codec.go): a task, its events and push configs as
//     column values (protobuf snapshots, state, status time) and back;
//   - the writes (write.go): a creation or update checked and encoded as
//     both stores write it (the first record, configs by id, the events);
//   - times as columns (times.go): unix nanoseconds, clamped, NULL for none;
//   - the retention cutoffs (retention.go): which terminal and interrupted
//     tasks a read must treat as gone although the sweep has not removed
//     them yet;
//   - the per-owner caps (owners.go): what a store removes, in which order,
//     when an owner's counts go over store.Retention's per-owner bounds;
//   - the listing filters (list.go): which optional filters a ListTasks
//     query uses, as a shape that keys prepared statements, and their values;
//   - error classification (errors.go): a failed database call as the error
//     a store reports, and why a write that matched no row failed;
//   - reading push-config rows (configs.go) and telling which runners of a
//     StaleRuns query have stopped (stale.go).
package sqlrecord
