package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/agentcard"
)

func (a *app) cardCommand() *cobra.Command {
	var (
		extended   bool
		verifyKeys []string
		require    bool
	)
	cmd := &cobra.Command{
		Use:   "card [URL]",
		Short: "Fetch and show an agent's card",
		Long: `card fetches the public agent card (URL/.well-known/agent-card.json) and
shows what a caller needs: name, interfaces, capabilities, skills. With
--extended it shows the extended card the agent serves to authenticated
callers instead (GetExtendedAgentCard, over the chosen binding; give --auth).

--verify-key checks the card's JWS signatures (A2A §8.4) against a public key:
a PEM file (PUBLIC KEY, CERTIFICATE), a JWKS or JWK file, or an http(s) URL of
a JWKS. A signed card whose signatures do not verify fails (exit 1);
--require-signature also fails an unsigned card.`,
		Example: `  a2a card http://localhost:8080
  a2a card http://localhost:8080 -o json
  a2a card http://localhost:8080 --extended --auth "Bearer $TOKEN"
  a2a card https://agent.example.com --verify-key https://agent.example.com/jwks.json --require-signature`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			url, rest, err := a.agentArgs(args)
			if err != nil {
				return err
			}
			if len(rest) > 0 {
				return usagef("card takes only the agent URL, got %q too", rest)
			}
			if require && len(verifyKeys) == 0 {
				return usagef("--require-signature needs --verify-key")
			}
			ctx, cancel := a.commandContext(cmd.Context(), false)
			defer cancel()
			verify, err := a.verificationOptions(ctx, verifyKeys, require)
			if err != nil {
				return err
			}
			cache := agentcard.NewCache(a.httpClient())
			card, doc, err := cache.FetchDocument(ctx, url)
			if err != nil {
				return transportError{err}
			}
			var results []agentcard.SignatureResult
			if len(verify) > 0 {
				if results, err = agentcard.VerifyCard(ctx, doc, verify...); err != nil {
					return err
				}
			}
			if extended {
				c, err := a.connect(ctx, url, agentcard.WithCardCache(cache))
				if err != nil {
					return err
				}
				defer c.Close()
				if card, err = c.GetExtendedAgentCard(ctx, &a2av1.GetExtendedAgentCardRequest{}); err != nil {
					return callError(err)
				}
			}
			return a.emit(a.env.stdout, card, func(w io.Writer) {
				printCard(w, card)
				for _, r := range results {
					status := "verified"
					if !r.Verified {
						status = "not verified: " + r.Problem
					}
					fmt.Fprintf(w, "signature %d  %s kid %q  %s\n", r.Index, r.Alg, r.Kid, status)
				}
			})
		},
	}
	f := cmd.Flags()
	f.BoolVar(&extended, "extended", false, "show the extended card (GetExtendedAgentCard) instead of the public one")
	f.StringArrayVar(&verifyKeys, "verify-key", nil, "verify the card's signatures with the keys of `FILE|URL` (PEM, JWK, JWKS; repeatable)")
	f.BoolVar(&require, "require-signature", false, "fail unless a signature verifies (needs --verify-key)")
	return cmd
}

// verificationOptions loads the --verify-key keys: files are read here,
// URLs are JWKS fetched when the card is verified.
func (a *app) verificationOptions(_ context.Context, sources []string, require bool) ([]agentcard.Option, error) {
	var opts []agentcard.Option
	for _, src := range sources {
		if isHTTPURL(src) {
			opts = append(opts, agentcard.WithJWKSURL(src))
			continue
		}
		data, err := os.ReadFile(src)
		if err != nil {
			return nil, fmt.Errorf("--verify-key: %w", err)
		}
		keys, err := agentcard.ParseVerificationKeys(data)
		if err != nil {
			return nil, fmt.Errorf("--verify-key %s: %w", src, err)
		}
		opts = append(opts, agentcard.WithVerificationKeys(keys...))
	}
	if len(opts) > 0 {
		opts = append(opts, agentcard.WithHTTPClient(a.httpClient()))
	}
	if require {
		opts = append(opts, agentcard.WithRequireSignature())
	}
	return opts, nil
}
