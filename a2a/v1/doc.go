// Package a2av1 is the A2A protocol v1.0 (proto package lf.a2a.v1) for Go:
// the message types (a2a.pb.go, by protoc-gen-go) and the service code
// (a2a.a2a.go, by protoc-gen-a2a) generated from the bundled
// proto/lf/a2a/v1/a2a.proto. Run `make generate` to regenerate both; a test
// fails when they are stale. Hand-written here are this file, the *_test.go
// files and the client helpers over the generated types: constructors of
// parts and messages (parts.go, message.go: NewTextMessage, NewFollowUp…),
// accessors on answers and stream events (response.go: TaskID, ContextID,
// State, Text) and TaskState predicates (taskstate.go: Terminal,
// Interrupted).
//
//	resp, err := client.SendMessage(ctx, a2av1.NewSendMessageRequest(a2av1.NewTextMessage("hello")))
//	if err != nil { … }
//	if resp.State() == a2av1.TaskState_TASK_STATE_INPUT_REQUIRED {
//		resp, err = client.SendMessage(ctx, a2av1.NewSendMessageRequest(
//			a2av1.NewFollowUp(resp.GetTask(), a2av1.NewTextPart("Paris"))))
//	}
//
// Serve an agent with NewA2AServiceJSONRPCHandler, NewA2AServiceRESTHandler
// or RegisterA2AServiceGRPC over an A2AServiceHandler (for example the
// default server of package github.com/a2agen/a2agen/server), and call one
// with NewA2AServiceJSONRPCClient, NewA2AServiceRESTClient or
// NewA2AServiceGRPCClient — or from its agent card with package
// github.com/a2agen/a2agen/agentcard. A2AServiceDesc describes every
// operation at run time.
//
// Do not link this package into a binary together with another package
// generated from the same proto (such as the official Go SDK's a2apb): both
// register lf.a2a.v1 types, and protobuf refuses that at start-up.
package a2av1
