package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/a2agen/a2agen/internal/cardsig"
	"github.com/a2agen/a2agen/internal/scaffold"
)

func newCardCommand() *cobra.Command {
	var (
		opts     scaffold.CardOptions
		keys     []string
		kids     []string
		jku      string
		jwksOut  string
		fileName string
	)
	cmd := &cobra.Command{
		Use:   "card FILE",
		Short: "Print the agent card a manifest describes (optionally signed)",
		Long: `card prints the agent card of a manifest as ProtoJSON: exactly the document
the scaffolded agent serves at /.well-known/agent-card.json.

Interface URLs come from the manifest's url (or --url): JSON-RPC and
HTTP+JSON interfaces are the base URL plus the binding's path, gRPC is the
base URL's host with the binding's port. Without either, the card names
http://localhost:PORT.

--sign adds a JWS signature (RFC 7515, detached payload) over the card
without its signatures, canonicalised with RFC 8785 (A2A §8.4). The key is
a PEM private key: EC P-256 signs with ES256, Ed25519 with EdDSA, RSA with
RS256. The protected header holds alg, kid (--kid, or the key's RFC 7638
thumbprint), typ "JOSE" and, with --jku, the URL of your key set. Repeat
--sign to sign with several keys (for a key rotation); --kid is then given
once per --sign, in the same order, or not at all.`,
		Example: `  a2a-scaffold card agent.yaml
  a2a-scaffold card agent.yaml --url https://agent.example.com --extended
  a2a-scaffold card agent.yaml --sign key.pem --kid 2026-01 --jwks-out jwks.json -o card.json`,
		Args:              exactArgs(1, "one manifest file"),
		ValidArgsFunction: yamlFiles,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(kids) > 0 && len(kids) != len(keys) {
				return usageError{fmt.Errorf("%d --kid for %d --sign: give one --kid per --sign, in the same order, or none", len(kids), len(keys))}
			}
			if jwksOut != "" && len(keys) == 0 {
				return usageError{errors.New("--jwks-out needs --sign")}
			}
			for i, path := range keys {
				key, err := cardsig.LoadSigningKey(path)
				if err != nil {
					return err
				}
				s := cardsig.Signer{Key: key, JWKSURL: jku}
				if len(kids) > 0 {
					s.KeyID = kids[i]
				}
				if s.KeyID == "" {
					if s.KeyID, err = cardsig.Thumbprint(key.Public()); err != nil {
						return err
					}
				}
				opts.Signers = append(opts.Signers, s)
			}
			out, err := scaffold.Card(args[0], opts)
			if err != nil {
				return err
			}
			if jwksOut != "" {
				if err := writeJWKS(jwksOut, opts.Signers); err != nil {
					return err
				}
			}
			if fileName != "" {
				return os.WriteFile(fileName, out, 0o644)
			}
			_, err = cmd.OutOrStdout().Write(out)
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.BaseURL, "url", "", "public base URL of the agent (overrides the manifest's url)")
	f.BoolVar(&opts.Extended, "extended", false, "print the extended card (public card plus extendedCard skills)")
	f.StringArrayVar(&keys, "sign", nil, "sign with this PEM private key (repeatable)")
	f.StringArrayVar(&kids, "kid", nil, "key id of the matching --sign key (default: the key's JWK thumbprint)")
	f.StringVar(&jku, "jku", "", "URL of the JWK set holding the signing keys (jku header)")
	f.StringVar(&jwksOut, "jwks-out", "", "also write the signing keys' public JWK set to this file")
	f.StringVarP(&fileName, "output", "o", "", "write the card to this file instead of standard output")
	_ = cmd.MarkFlagFilename("sign", "pem", "key")
	_ = cmd.MarkFlagFilename("jwks-out", "json")
	_ = cmd.MarkFlagFilename("output", "json")
	cmd.AddCommand(newCardVerifyCommand())
	return cmd
}

// writeJWKS writes the public keys of the signers as one JWK set.
func writeJWKS(path string, signers []cardsig.Signer) error {
	set, err := cardsig.JWKS(signers...)
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(set, '\n'), 0o644)
}

func newCardVerifyCommand() *cobra.Command {
	var keyFiles []string
	cmd := &cobra.Command{
		Use:   "verify FILE|-",
		Short: "Verify the signatures of an agent card",
		Long: `verify checks the JWS signatures of an agent card (a JSON file, or - for
standard input) against public keys: PEM files (PUBLIC KEY, RSA PUBLIC KEY,
CERTIFICATE) or JSON Web Key Sets, whose kid values must match the
signatures' kid. The payload is the card as received without its
signatures, canonicalised with RFC 8785 (A2A §8.4).

It prints one line per signature and exits with 0 when at least one
signature verifies, 1 otherwise.`,
		Example: `  a2a-scaffold card verify card.json --key public.pem
  curl -s https://agent.example.com/.well-known/agent-card.json | a2a-scaffold card verify - --key jwks.json`,
		Args: exactArgs(1, "one card file (or - for standard input)"),
		ValidArgsFunction: func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return []string{"json"}, cobra.ShellCompDirectiveFilterFileExt
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(keyFiles) == 0 {
				return usageError{errors.New("card verify needs at least one --key")}
			}
			var keys []cardsig.VerificationKey
			for _, path := range keyFiles {
				k, err := cardsig.LoadVerificationKeys(path)
				if err != nil {
					return err
				}
				keys = append(keys, k...)
			}
			var (
				data []byte
				err  error
			)
			if args[0] == "-" {
				data, err = io.ReadAll(cmd.InOrStdin())
			} else {
				data, err = os.ReadFile(args[0])
			}
			if err != nil {
				return fmt.Errorf("reading the card: %w", err)
			}
			results, verr := cardsig.Verify(data, keys)
			out := cmd.OutOrStdout()
			for _, r := range results {
				if r.Verified {
					fmt.Fprintf(out, "signature %d: verified (alg %s, kid %q)\n", r.Index+1, r.Alg, r.Kid)
				} else {
					fmt.Fprintf(out, "signature %d: NOT verified (alg %s, kid %q): %s\n", r.Index+1, r.Alg, r.Kid, r.Problem)
				}
			}
			if verr != nil && len(results) > 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "a2a-scaffold: %v\n", verr)
				return errReported
			}
			return verr
		},
	}
	cmd.Flags().StringArrayVar(&keyFiles, "key", nil, "public key: PEM or JWKS file (repeatable)")
	_ = cmd.MarkFlagFilename("key", "pem", "json", "crt")
	return cmd
}
