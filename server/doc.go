// Package server is the default implementation of a2av1.A2AServiceHandler:
// the eleven A2A 1.0 operations with the task semantics the specification
// requires, and the 1.1 draft's SendLiveMessage (live.go), over an Executor
// that the agent author writes.
//
//	exec := server.ExecutorFunc(func(ctx context.Context, req *server.Request, ev *server.Events) error {
//		if err := ev.Artifact(server.TextArtifact("", "Echo: "+req.Text())); err != nil {
//			return err
//		}
//		return ev.Complete(nil)
//	})
//	srv, err := server.New(card, exec)
//	…
//	http.Handle("/a2a", a2av1.NewA2AServiceJSONRPCHandler(srv))
//
// # What the server does
//
// SendMessage without a taskId runs the executor for a new task; the task is
// created (SUBMITTED, with the message in its history) at the executor's
// first event, so an executor that answers with Events.Reply creates no
// task. A message with a taskId continues that task: TaskNotFound if the
// caller cannot see it, UnsupportedOperation if it is terminal,
// InvalidParams if its contextId differs. If the task's execution is still
// running, the message joins the history and arrives on Request.FollowUps;
// otherwise a new turn starts. A message accepted for a running execution
// always reaches the agent: while it waits on FollowUps the execution cannot
// end the task (ErrFollowUpPending), so it takes it or gets it in the next
// turn; a message that comes once the task has ended is refused. SendMessage blocks until the task is terminal
// or interrupted unless returnImmediately is set, and applies historyLength.
// An inline push config is stored before the task's first event.
//
// Streams (SendStreamingMessage, SubscribeToTask) send the task first, then
// its status and artifact updates in the order they were written; every
// subscriber of a task sees the same sequence. A stream ends after a terminal
// state or INPUT_REQUIRED. It stays open through AUTH_REQUIRED: the agent may
// resume once the client authenticated elsewhere (A2A §7.6.1); clients close
// it when they like. SubscribeToTask accepts any non-terminal task,
// INPUT_REQUIRED and AUTH_REQUIRED included.
//
// Slow readers: each subscriber has a bounded buffer in the store
// (store.DefaultSubscriberBuffer events for the in-memory store) and a
// byte budget for the events it has not taken yet (WithMaxSubscriberBytes,
// store.DefaultSubscriberBytes). A stream that falls further behind is
// dropped — it receives an error as its last
// event saying to call SubscribeToTask again, which resumes from a fresh
// snapshot — so neither the task nor the other subscribers ever wait for it.
// A blocking SendMessage whose subscription is dropped resubscribes quietly.
//
// ListTasks orders by status timestamp (newest first, ties by id), filters by
// contextId, status and statusTimestampAfter (inclusive), pages 50 tasks by
// default and at most 100 (out of range: InvalidParams), reports totalSize,
// drops artifacts unless includeArtifacts and trims histories to
// historyLength. Its page tokens are opaque base64url positions in that
// order (status time and task id), so tasks created while a client pages
// cause neither duplicates nor gaps.
//
// CancelTask records CANCELED (all subscribers see it) and cancels the
// running execution's context (cause ErrCanceled); an executor implementing
// Canceler is asked first and may refuse. Canceling a CANCELED task returns
// it; other terminal tasks give TaskNotCancelable.
//
// Push configs (when the card declares pushNotifications) are kept in the
// store; every event of a task — the task itself when created, then each
// status and artifact update — is posted to every config of the task by
// package push, which orders, retries, bounds and guards the deliveries and
// never blocks the task.
//
// Capabilities come from the card given to New: without streaming the
// streaming operations answer UnsupportedOperation, without pushNotifications
// the push operations and inline configs answer PushNotificationNotSupported,
// without extendedAgentCard GetExtendedAgentCard answers
// UnsupportedOperation. With it, the extended card (WithExtendedCard) is
// served to authenticated callers only: those to whom the binding's
// runtime.Authenticator attached an identity (Request.Caller).
//
// Tenants and owners: every task lives in the tenant of the request that
// created it (runtime.CallInfo.Tenant) and is invisible — TaskNotFound — from
// any other tenant. WithTaskOwner scopes tasks further to the identity that
// created them. Under it, anonymous callers have no view of each other's
// tasks: a task they create is reachable only with its (random) id, and
// ListTasks lists ownerless tasks only within a contextId the request names
// — without one, an anonymous caller gets an empty page. Host and
// examples/echo run with WithTaskOwner(OwnerByCallerID).
//
// Secrets: push notification configs are answered redacted — token and
// authentication.credentials empty, scheme, url and id kept — by Create,
// Get and List alike; the stored config keeps them for delivery. A client
// rotates them by setting the config again with the same id (it replaces
// the stored one).
//
// Storage: tasks are immutable snapshots in a store.Store (in memory by
// default). Every change is an optimistic, versioned write that carries its
// events, so a store shared by replicas can carry events between them. State
// transitions are validated: nothing leaves a terminal state.
//
// Goroutines: one per running execution, which ends when Execute returns;
// streams and blocking calls run on the caller's goroutine; push deliveries
// run on the push sender's goroutines, one per webhook with pending work.
// Shutdown waits for all of them.
//
// Shutting down: Drain refuses new executions and waits for the running
// ones; Shutdown cancels those left (context.Cause is ErrShutdown), waits
// for them, and then ends every open stream with its task's latest state —
// or, when that state would not end the stream, with an error event saying
// the agent is shutting down — so that no stream is cut without a last
// event.
package server
