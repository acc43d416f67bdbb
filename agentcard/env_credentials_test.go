package agentcard_test

import (
	"context"
	"strings"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/agentcard"
)

// TestEnvCredentials: the secret of the variable travels as each kind of
// scheme asks, read at every call; an unset variable, a query API key and
// mutual TLS fail naming what to fix.
func TestEnvCredentials(t *testing.T) {
	apiKey := func(loc, name string) *a2av1.SecurityScheme {
		return &a2av1.SecurityScheme{Scheme: &a2av1.SecurityScheme_ApiKeySecurityScheme{ApiKeySecurityScheme: &a2av1.APIKeySecurityScheme{Location: loc, Name: name}}}
	}
	httpAuth := func(scheme string) *a2av1.SecurityScheme {
		return &a2av1.SecurityScheme{Scheme: &a2av1.SecurityScheme_HttpAuthSecurityScheme{HttpAuthSecurityScheme: &a2av1.HTTPAuthSecurityScheme{Scheme: scheme}}}
	}
	oauth := &a2av1.SecurityScheme{Scheme: &a2av1.SecurityScheme_Oauth2SecurityScheme{Oauth2SecurityScheme: &a2av1.OAuth2SecurityScheme{}}}
	mtls := &a2av1.SecurityScheme{Scheme: &a2av1.SecurityScheme_MtlsSecurityScheme{MtlsSecurityScheme: &a2av1.MutualTlsSecurityScheme{}}}
	creds := agentcard.EnvCredentials("PARTNER_SECRET")

	t.Setenv("PARTNER_SECRET", "")
	if _, _, err := creds(context.Background(), httpAuth("Bearer")); err == nil || !strings.Contains(err.Error(), "PARTNER_SECRET") {
		t.Errorf("unset variable: %v, want an error naming it", err)
	}
	t.Setenv("PARTNER_SECRET", "user:s3cret")
	for _, tc := range []struct {
		name          string
		scheme        *a2av1.SecurityScheme
		header, value string
		err           string
	}{
		{"bearer", httpAuth("Bearer"), "Authorization", "Bearer user:s3cret", ""},
		{"basic", httpAuth("basic"), "Authorization", "Basic dXNlcjpzM2NyZXQ=", ""},
		{"oauth2", oauth, "Authorization", "Bearer user:s3cret", ""},
		{"api key header", apiKey("header", "X-API-Key"), "X-API-Key", "user:s3cret", ""},
		{"api key cookie", apiKey("cookie", "key"), "Cookie", "key=user:s3cret", ""},
		{"api key query", apiKey("query", "key"), "", "", "query"},
		{"mtls", mtls, "", "", "client certificate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, v, err := creds(context.Background(), tc.scheme)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil || h != tc.header || v != tc.value {
				t.Errorf("got %q: %q (%v), want %q: %q", h, v, err, tc.header, tc.value)
			}
		})
	}
	t.Setenv("PARTNER_SECRET", "rotated")
	if _, v, _ := creds(context.Background(), httpAuth("bearer")); v != "Bearer rotated" {
		t.Errorf("after rotation: %q, want the new secret", v)
	}
}
