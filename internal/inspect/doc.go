// Package inspect is `a2a inspect`: a local web inspector for any A2A agent.
// It serves one page (plain HTML, CSS and JavaScript embedded in the binary)
// and a small JSON API behind it on 127.0.0.1; the page shows the agent's
// card with spec checks and signature verdicts, chats over any interface of
// the card (binding and protocol version chosen), fills typed skill forms
// from the card's JSON Schemas, lists, reads, cancels and follows tasks,
// manages push configs pointing at a receiver the inspector runs on
// loopback, and shows every exchange as it went over the wire.
//
// The calls themselves go through the project's clients (agentcard, and
// through it runtime and compat/a2av03 for v0.3), so the inspector sees an
// agent exactly as a2agen's client does. What the page sees of the wire is
// recorded below those clients: an http.RoundTripper for JSON-RPC and
// HTTP+JSON (the bytes as sent and received, SSE events one by one) and
// gRPC client interceptors (method, metadata, status).
//
// Security (docs/inspect.md): the listener is loopback only; every request
// must carry the random session token (in the URL or a header, compared in
// constant time); the Host header must name the listener, so a DNS-rebound
// name is refused; no CORS header is ever sent; nothing is written to disk.
package inspect
