package agentcard

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"strings"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// EnvCredentials returns Credentials that read the secret from the
// environment variable variable at every call (so that a rotated secret
// is used without a restart) and send it as the card's declaration of the
// scheme asks: "Authorization: Bearer <secret>" for HTTP bearer, OAuth 2.0
// and OpenID Connect schemes, "Authorization: Basic <base64>" for HTTP
// basic (the variable holds user:password), the key in the scheme's header
// or cookie for an API key. A variable that is unset or empty, an API key
// sent in the query and a mutual-TLS scheme fail the call, naming the
// variable or the scheme.
func EnvCredentials(variable string) Credentials {
	return func(_ context.Context, scheme *a2av1.SecurityScheme) (string, string, error) {
		secret := os.Getenv(variable)
		if secret == "" {
			return "", "", fmt.Errorf("the environment variable %s, which holds the credential, is not set", variable)
		}
		switch {
		case scheme.GetApiKeySecurityScheme() != nil:
			k := scheme.GetApiKeySecurityScheme()
			switch strings.ToLower(k.GetLocation()) {
			case "header":
				return k.GetName(), secret, nil
			case "cookie":
				return "Cookie", k.GetName() + "=" + secret, nil
			}
			return "", "", fmt.Errorf("the API key goes in the %s %q, which EnvCredentials cannot send (only header and cookie)", k.GetLocation(), k.GetName())
		case scheme.GetHttpAuthSecurityScheme() != nil:
			if strings.EqualFold(scheme.GetHttpAuthSecurityScheme().GetScheme(), "basic") {
				return "Authorization", "Basic " + base64.StdEncoding.EncodeToString([]byte(secret)), nil
			}
			return "Authorization", "Bearer " + secret, nil
		case scheme.GetOauth2SecurityScheme() != nil, scheme.GetOpenIdConnectSecurityScheme() != nil:
			return "Authorization", "Bearer " + secret, nil
		}
		return "", "", fmt.Errorf("the scheme takes no secret EnvCredentials can send (mutual TLS needs a client certificate: agentcard.WithHTTPClient, WithGRPCDialOptions)")
	}
}
