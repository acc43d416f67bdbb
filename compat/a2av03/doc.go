// Package a2av03 converts between the JSON shapes of A2A v0.3 (JSON-RPC
// params and results, tag v0.3.0 of the specification repository,
// specification/json/a2a.json) and the v1.0 messages of package a2av1, so
// that one Executor and one store can serve, and one typed client can call,
// both generations.
//
// The v0.3 shapes differ from v1.0 in a few systematic ways, each handled
// here: every part, message, task and event carries a "kind" discriminator
// ("text", "file", "data", "message", "task", "status-update",
// "artifact-update"); enums are lower-case words ("user", "input-required");
// file parts nest their bytes or uri with name and mimeType under "file";
// status updates carry "final"; a push config is nested under its task id and
// lists authentication schemes; SendMessage's configuration says "blocking"
// instead of "returnImmediately".
//
// Decoding is strict about what tells the versions apart: a part or event
// without its kind, an unknown kind, or a v1.0 enum spelling ("ROLE_USER",
// "TASK_STATE_WORKING") is InvalidParams naming the offending field
// ("message.parts[0].kind", "message.role"), so a v1.0 body sent under a v0.3
// method name is refused with a pointed error rather than half-read.
//
// Conversions without an exact counterpart are listed in Lossy and in
// docs/bindings.md ("A2A v0.3 shapes").
package a2av03
