// Package webhook is the receiving side of A2A push notifications, shared by
// the commands that run a local receiver (`a2a webhook listen`, `a2a
// inspect`): the token check, the bound on a delivery's body and the reading
// of a delivery in either protocol version's form. Serving, printing and
// showing deliveries stay with each command.
package webhook
