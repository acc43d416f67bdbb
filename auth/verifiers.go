package auth

import (
	"context"
	"crypto/x509"
)

// Principal is what a verifier learned from one credential.
type Principal struct {
	// Subject identifies the caller (a user, a client id, a key id).
	// Empty means the credential was accepted without naming anyone; the
	// scheme name is then used.
	Subject string
	// Scopes are the OAuth scopes (or, for other schemes, the roles) the
	// credential grants; security requirements are checked against them.
	Scopes []string
	// Claims is anything else handlers should see (token claims, a
	// customer record); it ends up in runtime.Identity.Claims.
	Claims any
}

// Verifiers check credentials; each is called with the name of the security
// scheme (as the card declares it) the credential was sent for. A nil
// verifier accepts nothing of its kind, except Certificate (see there).
//
// A verifier returns an error to refuse the credential. A *runtime.Error
// (runtime.Unauthenticated("token expired"), runtime.Unauthorized(…)) is
// sent to the client as it is; any other error is not shown to the client,
// which is told that the credentials of the scheme were not accepted.
type Verifiers struct {
	// APIKey checks the key of an apiKey scheme (from the header, query
	// parameter or cookie the scheme names; on gRPC, from the metadata
	// entry of that name for header and query keys, and from cookie
	// metadata for cookie keys).
	APIKey func(ctx context.Context, scheme, key string) (Principal, error)
	// Basic checks the user name and password of an http basic scheme
	// (Authorization: Basic …).
	Basic func(ctx context.Context, scheme, username, password string) (Principal, error)
	// Token checks a bearer token (Authorization: Bearer …) for an http
	// bearer, oauth2 or openIdConnect scheme: verify its signature, issuer,
	// audience and expiry, or introspect it, and return its scopes.
	Token func(ctx context.Context, scheme, token string) (Principal, error)
	// Certificate maps a client certificate chain, already verified by the
	// server's TLS configuration against its client CAs, to a principal
	// for an mtls scheme. When nil, a verified chain is accepted and the
	// subject is the leaf certificate's common name (or its whole subject
	// name), with the leaf as Claims.
	Certificate func(ctx context.Context, scheme string, chain []*x509.Certificate) (Principal, error)
}

// certificatePrincipal is the default Certificate verifier.
func certificatePrincipal(_ context.Context, _ string, chain []*x509.Certificate) (Principal, error) {
	leaf := chain[0]
	sub := leaf.Subject.CommonName
	if sub == "" {
		sub = leaf.Subject.String()
	}
	return Principal{Subject: sub, Claims: leaf}, nil
}
