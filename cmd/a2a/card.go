package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/spf13/cobra"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/agentcard"
	"github.com/a2agen/a2agen/internal/fieldbehavior"
)

func (a *app) cardCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "card",
		Short: "Fetch and show an agent's card",
		Long:  `card acts on the agent card: get fetches, checks and shows it.`,
		Example: `  a2a card get -a http://localhost:8080
  a2a card get -a ./agent-card.json --validate`,
		Args: cobra.ArbitraryArgs,
	}
	var f cardGetFlags
	get := &cobra.Command{
		Use:   "get",
		Short: "Fetch and show an agent's card",
		Long: `get fetches the public agent card and shows what a caller needs: identity,
interfaces, capabilities, security schemes, skills, and the state of its
signatures: verified (a signature checked out with --verify-key), unverifiable
(signed, but no key given or none checked out) or absent. An absent
signature is not an error.

--agent-card takes a host or origin (the card is at
/.well-known/agent-card.json), the card's full URL, a card file (file://… or
a path), or an AI Catalog entry (ORIGIN/.well-known/ai-catalog.json#ENTRY).

--validate checks the card against the A2A schema: no unknown members,
every REQUIRED field present. --extended shows the extended card the agent
serves to authenticated callers (GetExtendedAgentCard, over the chosen
binding; give credentials as the card's security schemes ask).

--verify-key checks the JWS signatures (A2A §8.4) against a PEM file (PUBLIC
KEY, CERTIFICATE), a JWKS or JWK file, or an http(s) URL of a JWKS; a signed
card whose signatures do not verify fails; --require-signature also fails an
unsigned card.`,
		Example: `  a2a card get -a http://localhost:8080
  a2a card get -a http://localhost:8080 -o json
  a2a card get -a ./agent-card.json --validate
  a2a card get -a http://localhost:8080 --extended --bearer "$TOKEN"
  a2a card get -a https://agent.example.com --verify-key https://agent.example.com/jwks.json --require-signature
  a2a card get -a https://example.com/.well-known/ai-catalog.json#urn:air:example.com:a2a:echo`,
		RunE: func(cmd *cobra.Command, args []string) error { return a.runCardGet(cmd, args, f) },
	}
	get.Flags().BoolVar(&f.extended, "extended", false, "show the extended card (GetExtendedAgentCard) instead of the public one")
	get.Flags().BoolVar(&f.validate, "validate", false, "check the card against the A2A schema")
	get.Flags().StringArrayVar(&f.verifyKeys, "verify-key", nil, "verify the card's signatures with the keys of `FILE|URL` (PEM, JWK, JWKS; repeatable)")
	get.Flags().BoolVar(&f.require, "require-signature", false, "fail unless a signature verifies (needs --verify-key)")
	// The old "a2a card URL --extended …" form keeps its flags.
	cmd.Flags().BoolVar(&f.extended, "extended", false, "deprecated: card get --extended")
	cmd.Flags().StringArrayVar(&f.verifyKeys, "verify-key", nil, "deprecated: card get --verify-key")
	cmd.Flags().BoolVar(&f.require, "require-signature", false, "deprecated: card get --require-signature")
	for _, n := range []string{"extended", "verify-key", "require-signature"} {
		_ = cmd.Flags().MarkHidden(n)
	}
	cmd.RunE = func(c *cobra.Command, args []string) error {
		deprecated(a.env.stderr, "card", "card get")
		return a.runCardGet(c, args, f)
	}
	cmd.AddCommand(get)
	return cmd
}

type cardGetFlags struct {
	extended, validate, require bool
	verifyKeys                  []string
}

// check refuses arguments (the agent is named by a flag) and flags that
// need another.
func (f cardGetFlags) check(args []string) error {
	if len(args) > 0 {
		return usagef("card get takes no arguments, got %q (name the agent with --agent-card)", args)
	}
	if f.require && len(f.verifyKeys) == 0 {
		return usagef("--require-signature needs --verify-key")
	}
	return nil
}

func (a *app) runCardGet(cmd *cobra.Command, args []string, f cardGetFlags) error {
	ref, rest, err := a.agentArgs(args)
	if err != nil {
		return err
	}
	if err := f.check(rest); err != nil {
		return err
	}
	ctx, cancel := a.commandContext(cmd.Context(), false)
	defer cancel()
	verify, err := a.verificationOptions(ctx, f.verifyKeys, f.require)
	if err != nil {
		return err
	}
	r, err := a.resolveCard(ctx, ref)
	if err != nil {
		return err
	}
	if f.validate {
		if err := checkCardDocument(r); err != nil {
			return err
		}
	}
	signature, results, err := cardSignature(ctx, r, verify)
	if err != nil {
		return err
	}
	card := r.card
	if f.extended {
		card, err = a.extendedCard(ctx, card)
	}
	if err != nil {
		return err
	}
	return a.emit(a.env.stdout, card, func(w io.Writer) {
		printCard(w, card)
		if f.validate {
			labeled(w, "Validation", "valid")
		}
		labeled(w, "Signature", signature)
		printSignatureResults(w, results)
	})
}

// checkCardDocument refuses a card document that is not a valid A2A agent
// card.
func checkCardDocument(r *resolved) error {
	if problems := validateCard(r.doc); len(problems) > 0 {
		return &cliError{code: errCardInvalid, hint: "fix the card's document; the A2A specification's AgentCard lists its members",
			err: fmt.Errorf("the card at %s is not a valid A2A agent card: %s", r.ref, strings.Join(problems, "; "))}
	}
	return nil
}

// cardSignature verifies the card's signatures with the --verify-key
// options, if any, and says what came of it: absent, verified or
// unverifiable (and why), with each signature's result.
func cardSignature(ctx context.Context, r *resolved, verify []agentcard.Option) (string, []agentcard.SignatureResult, error) {
	signature := "absent"
	if len(r.card.GetSignatures()) > 0 {
		signature = "unverifiable (no --verify-key given)"
	}
	if len(verify) == 0 {
		return signature, nil, nil
	}
	results, err := agentcard.VerifyCard(ctx, r.doc, verify...)
	if err != nil {
		return "", nil, err
	}
	for _, res := range results {
		if res.Verified {
			return "verified", results, nil
		}
	}
	if len(results) > 0 {
		signature = "unverifiable (no signature checked out)"
	}
	return signature, results, nil
}

// extendedCard asks the agent for its extended card, which its card must
// declare.
func (a *app) extendedCard(ctx context.Context, card *a2av1.AgentCard) (*a2av1.AgentCard, error) {
	if !card.GetCapabilities().GetExtendedAgentCard() {
		return nil, &cliError{code: errUsage, hint: "'a2a card get' shows the agent's capabilities",
			err: fmt.Errorf("the agent's card does not declare an extended card")}
	}
	c, err := a.clientFor(card)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	extended, err := c.GetExtendedAgentCard(ctx, &a2av1.GetExtendedAgentCardRequest{})
	if err != nil {
		return nil, callError(err)
	}
	return extended, nil
}

// printSignatureResults prints a "Signature N" line a checked signature.
func printSignatureResults(w io.Writer, results []agentcard.SignatureResult) {
	for _, r := range results {
		status := "verified"
		if !r.Verified {
			status = "not verified: " + r.Problem
		}
		labeled(w, fmt.Sprintf("Signature %d", r.Index), fmt.Sprintf("%s kid %q %s", r.Alg, r.Kid, status))
	}
}

// validateCard checks a card document against the A2A AgentCard: no
// member the schema lacks, every REQUIRED field present.
func validateCard(doc []byte) []string {
	card := new(a2av1.AgentCard)
	if err := (protojson.UnmarshalOptions{}).Unmarshal(doc, card); err != nil {
		return []string{err.Error()}
	}
	var problems []string
	missingRequired(card.ProtoReflect(), "", &problems)
	return problems
}

// missingRequired lists the REQUIRED fields absent from m, by JSON path.
func missingRequired(m protoreflect.Message, prefix string, out *[]string) {
	fields := m.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		path := prefix + fd.JSONName()
		switch {
		case fieldbehavior.Required(fd) && !m.Has(fd):
			*out = append(*out, path+" is required")
		case fd.Kind() == protoreflect.MessageKind && m.Has(fd):
			missingRequiredIn(m.Get(fd), fd, path, out)
		}
	}
}

// missingRequiredIn lists the REQUIRED fields absent from the messages of
// v, the value at path of the message field fd (a list, a map or one).
func missingRequiredIn(v protoreflect.Value, fd protoreflect.FieldDescriptor, path string, out *[]string) {
	switch {
	case fd.IsList():
		l := v.List()
		for j := 0; j < l.Len(); j++ {
			missingRequired(l.Get(j).Message(), fmt.Sprintf("%s[%d].", path, j), out)
		}
	case fd.IsMap():
		if fd.MapValue().Kind() == protoreflect.MessageKind {
			v.Map().Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
				missingRequired(v.Message(), fmt.Sprintf("%s[%s].", path, k.String()), out)
				return true
			})
		}
	default:
		missingRequired(v.Message(), path+".", out)
	}
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
			return nil, usagef("--verify-key: %v", err)
		}
		keys, err := agentcard.ParseVerificationKeys(data)
		if err != nil {
			return nil, fmt.Errorf("--verify-key %s: %w", src, err)
		}
		opts = append(opts, agentcard.WithVerificationKeys(keys...))
	}
	if len(opts) > 0 {
		hc, err := a.httpClient()
		if err != nil {
			return nil, err
		}
		opts = append(opts, agentcard.WithHTTPClient(hc))
	}
	if require {
		opts = append(opts, agentcard.WithRequireSignature())
	}
	return opts, nil
}
