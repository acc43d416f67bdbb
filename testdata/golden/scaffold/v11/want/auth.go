package main

import (
	"context"

	"github.com/a2agen/a2agen/auth"
	"github.com/a2agen/a2agen/runtime"
)

// verifiers checks the credentials callers send for the security schemes of
// agent.yaml (it declares none yet). Each verifier gets the scheme's name and
// the credential and returns who the caller is, with the scopes (or roles) the
// credential grants; the securityRequirements of agent.yaml are checked
// against them. Return an error to refuse the credential: a
// runtime.Unauthenticated or runtime.Unauthorized error is sent as it is, any
// other error as "not accepted".
//
// The defaults refuse every credential, so that nothing is open by accident:
// replace them. mtls needs no verifier: a client certificate that the CAs of
// -client-ca verified is accepted (set Certificate to check more).
func verifiers() auth.Verifiers {
	return auth.Verifiers{
		APIKey: func(ctx context.Context, scheme, key string) (auth.Principal, error) {
			// Look the key up (compare secrets with crypto/subtle) and say whose it is:
			//
			//	return auth.Principal{Subject: "partner-1"}, nil
			return auth.Principal{}, errNotConfigured
		},
		Token: func(ctx context.Context, scheme, token string) (auth.Principal, error) {
			// Bearer tokens of http bearer, oauth2 and openIdConnect schemes: verify the
			// signature, issuer, audience and expiry of a JWT (or introspect the token at
			// the authorization server), then return its subject and scopes:
			//
			//	return auth.Principal{Subject: claims.Subject, Scopes: strings.Fields(claims.Scope)}, nil
			return auth.Principal{}, errNotConfigured
		},
		Basic: func(ctx context.Context, scheme, username, password string) (auth.Principal, error) {
			// Check the password against a stored hash (bcrypt, argon2id):
			//
			//	return auth.Principal{Subject: username}, nil
			return auth.Principal{}, errNotConfigured
		},
	}
}

// errNotConfigured refuses credentials until verifiers is written.
var errNotConfigured = runtime.Unauthenticated("this agent cannot check credentials yet: write the verifiers in auth.go")
