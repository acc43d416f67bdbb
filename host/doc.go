// Package host runs an A2A agent described by its agent card: the default
// server (package server) over the agent's skills, served on every
// binding the agent declares — JSON-RPC and HTTP+JSON on shared HTTP
// listeners next to the agent card, gRPC on its own — with the card's
// security enforced on all of them (package auth), optional TLS (the card
// then advertises TLS URLs: CardWithTLS), health checks (HealthzPath,
// ReadyzPath, grpc.health.v1) and a graceful shutdown (Agent.Shutdown:
// not ready, no new calls, a grace period for running executions, then
// their cancellation, and every open stream ended with its task's latest
// state). Main adds flags with environment variables (EnvName) and signal
// handling; docs/operating.md describes all of it for operators.
//
// It is what the code a2a-scaffold generates calls: the generated files
// hold the card, the bindings and the skill table of the manifest, and
// host does the rest, so that regenerating a project changes data rather
// than logic.
//
//	a, err := host.Start(host.Config{
//		CardJSON: cardJSON,
//		Bindings: []host.Binding{{Protocol: runtime.BindingJSONRPC, Address: ":8080", Path: "/"}},
//		Skills:   []host.Skill{{ID: "echo", Run: echo}},
//	})
//	if err != nil { … }
//	err = a.Wait(ctx) // serves until ctx is done, then shuts down
//
// # Skill routing
//
// Every incoming message is handed to one skill's function:
//
//  1. an agent with one skill hands every message to it;
//  2. otherwise a message whose metadata names a skill under
//     SkillMetadataKey ("a2a-scaffold/skill") goes to that skill; the
//     name is looked up in the message, then in the earlier messages of
//     the task (latest first), then in the request's metadata, so that
//     the follow-ups of a task stay with its skill. An unknown skill id
//     is InvalidParams listing the skills; skills of the extended card
//     are known only to authenticated callers;
//  3. otherwise Config.Route decides (an empty answer means the first
//     skill of the public card).
//
// The chosen skill's securityRequirements (from the card) are then checked
// against the caller's identity: Unauthenticated or Unauthorized, before
// any task exists. Then its modes: a part whose media type is not among
// the skill's inputModes (else the card's defaultInputModes), or a client
// whose acceptedOutputModes match none of its outputModes, is refused with
// ContentTypeNotSupported naming both lists. What the skill answers is held
// to its outputModes too: a part of another media type in an artifact, a
// status message or a reply is refused by the events method
// (InvalidAgentResponse naming the part, its media type and the declared
// modes; server.Events.CheckParts), and the task fails with that error
// (docs/manifest.md, "What the skill answers").
package host
