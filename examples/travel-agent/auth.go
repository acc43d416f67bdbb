package main

import (
	"context"
	"crypto/subtle"
	"os"

	"github.com/a2agen/a2agen/auth"
	"github.com/a2agen/a2agen/runtime"
)

// verifiers checks the credentials callers send for the security schemes of
// agent.yaml: partnerToken (HTTP bearer). The example accepts one token, the
// value of $TRAVEL_AGENT_TOKEN, and no token at all when it is unset. A real
// agent verifies a JWT or asks its authorization server.
func verifiers() auth.Verifiers {
	return auth.Verifiers{
		Token: func(ctx context.Context, scheme, token string) (auth.Principal, error) {
			want := os.Getenv("TRAVEL_AGENT_TOKEN")
			if want == "" || subtle.ConstantTimeCompare([]byte(token), []byte(want)) != 1 {
				return auth.Principal{}, runtime.Unauthenticated("unknown partner token")
			}
			return auth.Principal{Subject: "partner"}, nil
		},
	}
}
