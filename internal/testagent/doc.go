// Package testagent is a small, deterministic, in-memory implementation of the
// generated a2av1.A2AServiceHandler. It exists so that tests and the demo can
// drive every operation through a real binding; it is not the default server
// (task semantics for real agents live in the server package).
//
// Behaviour by the text of the incoming message:
//
//	"message"  → a direct Message reply ("Echo: message"), no task
//	"input"    → a task left in TASK_STATE_INPUT_REQUIRED (cancelable, subscribable)
//	anything   → a task completed at once with one artifact "Echo: <text>"
package testagent
