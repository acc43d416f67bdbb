package server

import (
	"context"
	"iter"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// SendLiveMessage implements a2av1.A2AServiceHandler. Not served yet: it
// answers UnsupportedOperation.
func (s *Server) SendLiveMessage(ctx context.Context, reqs iter.Seq2[*a2av1.StreamRequest, error], stream runtime.Stream[*a2av1.StreamResponse]) error {
	return runtime.UnsupportedOperation("this agent does not serve SendLiveMessage")
}
