package server

import (
	"context"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// Card returns the public agent card the server was created with
// (read-only), e.g. for runtime.NewAgentCardHandler.
func (s *Server) Card() *a2av1.AgentCard { return s.card }

// GetExtendedAgentCard implements a2av1.A2AServiceHandler. Without
// capabilities.extendedAgentCard on the public card it answers
// UnsupportedOperation; anonymous callers get Unauthenticated (the extended
// card is for authenticated callers only, A2A §8.4 — give the bindings a
// runtime.Authenticator); with no extended card configured (or a nil one from
// WithExtendedCardFunc) it answers ExtendedAgentCardNotConfigured.
func (s *Server) GetExtendedAgentCard(ctx context.Context, req *a2av1.GetExtendedAgentCardRequest) (*a2av1.AgentCard, error) {
	if !s.extendedEnabled {
		return nil, runtime.UnsupportedOperation("this agent has no extended card: its card does not declare capabilities.extendedAgentCard")
	}
	cv, err := s.begin(ctx, req.GetTenant())
	if err != nil {
		return nil, err
	}
	c := &cv
	if c.caller == nil {
		return nil, runtime.Unauthenticated("the extended agent card is only served to authenticated callers; authenticate with a scheme from the public card")
	}
	if s.extended == nil {
		return nil, runtime.ExtendedAgentCardNotConfigured()
	}
	card, err := s.extended(c.ctx, c.caller)
	if err != nil {
		return nil, internalError("building the extended agent card", err)
	}
	if card == nil {
		return nil, runtime.ExtendedAgentCardNotConfigured()
	}
	return card, nil
}
