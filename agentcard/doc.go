// Package agentcard builds A2A clients from agent cards: it fetches the
// public card of an agent (GET <base>/.well-known/agent-card.json, honouring
// ETag and Cache-Control), chooses one of the card's supportedInterfaces the
// way the specification says — the first entry whose binding this client
// speaks and whose protocolVersion has major version 1 — and returns the
// common a2av1.A2AServiceClient over that interface, with the interface's
// tenant and protocol version applied.
//
//	c, err := agentcard.Discover(ctx, "https://agent.example.com",
//		agentcard.WithCredentials("bearer", agentcard.StaticHeader("Authorization", "Bearer "+token)))
//	if err != nil { … }
//	defer c.Close()
//	resp, err := c.SendMessage(ctx, req)
//
// The bindings are JSON-RPC, HTTP+JSON and gRPC out of the box; WithTransport
// adds or replaces the transport of any binding (a custom binding URI).
// When no interface qualifies, the error is a *NoInterfaceError listing every
// interface and why it was refused.
package agentcard
