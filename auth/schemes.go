package auth

import (
	"fmt"
	"slices"
	"strings"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// kind is how a scheme's credential travels.
type kind int

const (
	kindAPIKey kind = iota + 1
	kindBasic       // Authorization: Basic
	kindBearer      // Authorization: Bearer (http bearer, oauth2, openIdConnect)
	kindMTLS        // a verified client certificate
)

// scheme is one security scheme of the card, reduced to what enforcing it
// needs.
type scheme struct {
	name     string
	kind     kind
	location string // apiKey: header, query or cookie
	keyName  string // apiKey: header, parameter or cookie name
}

// schemesOf reads the card's security schemes, sorted by name. A scheme
// this package cannot enforce is an error naming it.
func schemesOf(card *a2av1.AgentCard) ([]scheme, error) {
	var out []scheme
	var problems []string
	for name, s := range card.GetSecuritySchemes() {
		sc := scheme{name: name}
		switch v := s.GetScheme().(type) {
		case *a2av1.SecurityScheme_ApiKeySecurityScheme:
			sc.kind, sc.keyName = kindAPIKey, v.ApiKeySecurityScheme.GetName()
			sc.location = strings.ToLower(v.ApiKeySecurityScheme.GetLocation())
			if sc.keyName == "" || (sc.location != "header" && sc.location != "query" && sc.location != "cookie") {
				problems = append(problems, fmt.Sprintf("%q: an apiKey scheme needs a name and a location of header, query or cookie", name))
				continue
			}
		case *a2av1.SecurityScheme_HttpAuthSecurityScheme:
			switch strings.ToLower(v.HttpAuthSecurityScheme.GetScheme()) {
			case "bearer":
				sc.kind = kindBearer
			case "basic":
				sc.kind = kindBasic
			default:
				problems = append(problems, fmt.Sprintf("%q: http scheme %q is not supported (bearer or basic)", name, v.HttpAuthSecurityScheme.GetScheme()))
				continue
			}
		case *a2av1.SecurityScheme_Oauth2SecurityScheme, *a2av1.SecurityScheme_OpenIdConnectSecurityScheme:
			sc.kind = kindBearer
		case *a2av1.SecurityScheme_MtlsSecurityScheme:
			sc.kind = kindMTLS
		default:
			problems = append(problems, fmt.Sprintf("%q: no scheme type is set", name))
			continue
		}
		out = append(out, sc)
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		return nil, fmt.Errorf("auth: security schemes of card %q that cannot be enforced: %s", card.GetName(), strings.Join(problems, "; "))
	}
	slices.SortFunc(out, func(a, b scheme) int { return strings.Compare(a.name, b.name) })
	return out, nil
}

// checkRequirements reports requirements that name schemes the card does
// not declare: they could never be satisfied.
func checkRequirements(card *a2av1.AgentCard, schemes []scheme, where string, reqs []*a2av1.SecurityRequirement) error {
	for i, r := range reqs {
		for name := range r.GetSchemes() {
			if !slices.ContainsFunc(schemes, func(s scheme) bool { return s.name == name }) {
				return fmt.Errorf("auth: %s security requirement %d of card %q names scheme %q, which the card does not declare", where, i, card.GetName(), name)
			}
		}
	}
	return nil
}
