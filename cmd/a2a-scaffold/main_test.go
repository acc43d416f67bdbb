package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2agen/a2agen/internal/manifest"
	"github.com/a2agen/a2agen/internal/version"
)

// result is what one in-process run of the command produced.
type result struct {
	code           int
	stdout, stderr string
}

func runCLI(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &out, &errOut)
	return result{code, out.String(), errOut.String()}
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestVersionAndHelp(t *testing.T) {
	if r := runCLI(t, "", "--version"); r.code != 0 || r.stdout != version.Line("a2a-scaffold") {
		t.Errorf("--version: %+v", r)
	}
	r := runCLI(t, "", "--help")
	for _, want := range []string{"new", "generate", "validate", "card", "proto", "completion", "Examples:"} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("--help lacks %q: %+v", want, r)
		}
	}
	for _, cmd := range [][]string{{"new"}, {"generate"}, {"validate"}, {"card"}, {"card", "verify"}, {"proto"}, {"help"}, {"completion"}, {"completion", "bash"}, {"completion", "zsh"}, {"completion", "fish"}, {"completion", "powershell"}} {
		r := runCLI(t, "", append(cmd, "--help")...)
		if r.code != 0 || !strings.Contains(r.stdout, "Examples:") {
			t.Errorf("%v --help has no examples: %+v", cmd, r)
		}
	}
	if r := runCLI(t, "", "completion", "bash"); r.code != 0 || !strings.Contains(r.stdout, "bash completion") {
		t.Errorf("completion bash: code %d, %.80q", r.code, r.stdout)
	}
}

func TestValidate(t *testing.T) {
	good := writeFile(t, "agent.yaml", string(manifest.Starter("demo")))
	if r := runCLI(t, "", "validate", good); r.code != 0 || r.stdout != good+": valid\n" {
		t.Errorf("valid manifest: %+v", r)
	}
	bad := writeFile(t, "agent.yaml", `apiVersion: a2agen/v1
nmae: Echo
description: Echoes.
version: "1"
bindings:
  - binding: jsonrpc
skills: []
`)
	r := runCLI(t, "", "validate", bad)
	want := bad + ":1:1: name: required\n" +
		bad + ":2:1: nmae: unknown key; did you mean \"name\"?\n" +
		bad + ":6:14: bindings[0].binding: unknown binding \"jsonrpc\"; did you mean \"JSONRPC\"?\n" +
		bad + ":7:9: skills: must list at least one skill\n" +
		bad + ": 4 problem(s)\n"
	if r.code != 1 || r.stdout != "" || r.stderr != want {
		t.Errorf("invalid manifest: code %d\nstderr:\n%s\nwant:\n%s", r.code, r.stderr, want)
	}
	if r := runCLI(t, "", "validate", filepath.Join(t.TempDir(), "none.yaml")); r.code != 1 || !strings.Contains(r.stderr, "no such file") {
		t.Errorf("missing file: %+v", r)
	}
	if r := runCLI(t, "", "validate"); r.code != 2 || !strings.Contains(r.stderr, "takes one manifest file") {
		t.Errorf("no argument: %+v", r)
	}
	if r := runCLI(t, "", "validate", "--bogus", good); r.code != 2 || !strings.Contains(r.stderr, "unknown flag") {
		t.Errorf("unknown flag: %+v", r)
	}
}

func TestCard(t *testing.T) {
	m := writeFile(t, "agent.yaml", string(manifest.Starter("demo")))
	r := runCLI(t, "", "card", m, "--url", "https://demo.example.com")
	if r.code != 0 || !strings.Contains(r.stdout, `"url": "https://demo.example.com/rest"`) {
		t.Errorf("card: %+v", r)
	}
	if r := runCLI(t, "", "card", m, "--url", "demo.example.com"); r.code != 1 || !strings.Contains(r.stderr, "--url: invalid URL") {
		t.Errorf("bad --url: %+v", r)
	}
	out := filepath.Join(t.TempDir(), "card.json")
	if r := runCLI(t, "", "card", m, "-o", out); r.code != 0 || r.stdout != "" {
		t.Errorf("-o: %+v", r)
	}
	if data, err := os.ReadFile(out); err != nil || !strings.HasPrefix(string(data), "{\n  \"name\": \"demo\"") {
		t.Errorf("-o wrote %.40q, %v", data, err)
	}
}

func TestSignAndVerify(t *testing.T) {
	dir := t.TempDir()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	pub, _ := x509.MarshalPKIXPublicKey(key.Public())
	keyFile := writeFile(t, "key.pem", string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})))
	pubFile := writeFile(t, "pub.pem", string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub})))
	m := writeFile(t, "agent.yaml", string(manifest.Starter("demo")))
	jwks := filepath.Join(dir, "jwks.json")

	signed := runCLI(t, "", "card", m, "--sign", keyFile, "--kid", "k1", "--jwks-out", jwks)
	if signed.code != 0 || !strings.Contains(signed.stdout, `"signatures": [`) {
		t.Fatalf("card --sign: %+v", signed)
	}
	want := "signature 1: verified (alg ES256, kid \"k1\")\n"
	if r := runCLI(t, signed.stdout, "card", "verify", "-", "--key", pubFile); r.code != 0 || r.stdout != want {
		t.Errorf("verify with the PEM key: %+v", r)
	}
	cardFile := writeFile(t, "card.json", signed.stdout)
	if r := runCLI(t, "", "card", "verify", cardFile, "--key", jwks); r.code != 0 || r.stdout != want {
		t.Errorf("verify with the JWKS: %+v", r)
	}
	tampered := strings.Replace(signed.stdout, `"name": "demo"`, `"name": "evil"`, 1)
	r := runCLI(t, tampered, "card", "verify", "-", "--key", pubFile)
	if r.code != 1 || !strings.Contains(r.stdout, "signature 1: NOT verified") || !strings.Contains(r.stderr, "no signature of the card verified") {
		t.Errorf("tampered card: %+v", r)
	}
	for name, tc := range map[string]struct {
		args []string
		code int
		want string
	}{
		"kid without sign":   {[]string{"card", m, "--kid", "a"}, 2, "1 --kid for 0 --sign"},
		"jwks without sign":  {[]string{"card", m, "--jwks-out", jwks}, 2, "--jwks-out needs --sign"},
		"verify without key": {[]string{"card", "verify", cardFile}, 2, "at least one --key"},
		"unsigned card":      {[]string{"card", "verify", writeFile(t, "u.json", `{"name":"x"}`), "--key", pubFile}, 1, "no signatures"},
		"bad key file":       {[]string{"card", m, "--sign", pubFile}, 1, "no PEM private key"},
	} {
		if r := runCLI(t, "", tc.args...); r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%s: %+v; want code %d and %q", name, r, tc.code, tc.want)
		}
	}
}

func TestProto(t *testing.T) {
	dir := t.TempDir()
	r := runCLI(t, "", "proto", "--out", dir)
	if r.code != 0 || !strings.Contains(r.stdout, "lf/a2a/v1/a2a.proto\n") || !strings.Contains(r.stdout, "google/api/annotations.proto\n") {
		t.Fatalf("proto: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "google", "protobuf", "descriptor.proto")); err != nil {
		t.Error(err)
	}
	if r := runCLI(t, "", "proto"); r.code != 2 || !strings.Contains(r.stderr, "--out") {
		t.Errorf("proto without --out: %+v", r)
	}
	// The 1.0 proto has no generation field; --version 1.1-draft writes the
	// draft, which has, at the same path.
	v10, _ := os.ReadFile(filepath.Join(dir, "lf", "a2a", "v1", "a2a.proto"))
	draft := t.TempDir()
	if r := runCLI(t, "", "proto", "--out", draft, "--version", "1.1-draft"); r.code != 0 {
		t.Fatalf("proto --version 1.1-draft: %+v", r)
	}
	v11, _ := os.ReadFile(filepath.Join(draft, "lf", "a2a", "v1", "a2a.proto"))
	if strings.Contains(string(v10), "int64 generation = 7;") || !strings.Contains(string(v11), "int64 generation = 7;") {
		t.Error("proto wrote generation fields into 1.0, or none into the 1.1 draft")
	}
	if r := runCLI(t, "", "proto", "--out", draft, "--version", "2.0"); r.code == 0 || !strings.Contains(r.stderr, "the versions are 1.0, 1.1-draft") {
		t.Errorf("proto --version 2.0: %+v", r)
	}
}
