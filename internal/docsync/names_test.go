package docsync_test

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/a2agen/a2agen/host"
	"github.com/a2agen/a2agen/host/llm"
)

// docs are the documents a user reads: README.md, CONTRIBUTING.md and docs/*.md.
func docs(t *testing.T) map[string]string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	files = append(files, filepath.Join(root, "README.md"), filepath.Join(root, "CONTRIBUTING.md"))
	out := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimPrefix(f, root+"/")] = string(b)
	}
	return out
}

// hostFlags are the flags of host.Main, read from its -help, with those
// an LLM provider adds (host/llm, through host.Config.Flags).
func hostFlags(t *testing.T) map[string]bool {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := host.Main(context.Background(), "agent", host.Config{Flags: (&llm.Provider{}).Flags}, []string{"-help"}, &stdout, &stderr); code != 0 {
		t.Fatalf("host.Main -help: exit %d\n%s", code, stderr.String())
	}
	flags := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^  -([a-z][a-z0-9-]*)`).FindAllStringSubmatch(stderr.String(), -1) {
		flags[m[1]] = true
	}
	if len(flags) < 20 {
		t.Fatalf("host.Main -help lists %d flags:\n%s", len(flags), stderr.String())
	}
	return flags
}

// otelSDKVariables are OpenTelemetry variables the docs name that the
// OpenTelemetry SDK reads itself (telemetry.FromEnvironment passes them
// on); the others must be read by a2agen's code.
var otelSDKVariables = map[string]bool{
	"OTEL_TRACES_SAMPLER":               true,
	"OTEL_TRACES_SAMPLER_ARG":           true,
	"OTEL_METRIC_EXPORT_INTERVAL":       true,
	"OTEL_EXPORTER_OTLP_HEADERS":        true,
	"OTEL_EXPORTER_OTLP_TRACES_HEADERS": true,
}

// variableName is an environment variable of a2agen, its tests or
// OpenTelemetry.
var variableName = regexp.MustCompile(`\b(?:A2A|A2AGEN|OTEL|GOLANG)_[A-Z0-9_]*[A-Z0-9]\b`)

// codeNames are the variable names the code mentions: string literals of
// Go files ("A2A_STORE", "A2AGEN_SOAK=1") and any mention in the Makefile,
// .ci/run and scripts.
func codeNames(t *testing.T) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	literal := regexp.MustCompile(`"((?:A2A|A2AGEN|OTEL|GOLANG)_[A-Z0-9_]*[A-Z0-9])[="]`)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == ".git" || n == "node_modules" || n == "testdata" && p != root {
				return filepath.SkipDir
			}
			return nil
		}
		rel := strings.TrimPrefix(p, root+"/")
		switch {
		case strings.HasSuffix(p, ".go"):
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, m := range literal.FindAllStringSubmatch(string(b), -1) {
				names[m[1]] = true
			}
		case rel == "Makefile" || rel == ".ci/run" || strings.HasPrefix(rel, "scripts/"):
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, n := range variableName.FindAllString(string(b), -1) {
				names[n] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// TestDocumentedVariablesExist: every environment variable README.md and
// docs/*.md name is one the code reads: a flag's variable of host.Main
// (A2A_ and the flag's name), a name the code spells (the CLI's A2A_TOKEN,
// the store's A2A_NODE_NAME, the tests' A2AGEN_TEST_POSTGRES, telemetry's
// OTEL_ variables), or one the OpenTelemetry SDK reads itself. A renamed
// flag or variable fails here until the docs follow.
func TestDocumentedVariablesExist(t *testing.T) {
	known := codeNames(t)
	for f := range hostFlags(t) {
		known[host.EnvName(f)] = true
	}
	for file, text := range docs(t) {
		for n, line := range strings.Split(text, "\n") {
			for _, name := range variableName.FindAllString(line, -1) {
				if !known[name] && !otelSDKVariables[name] {
					t.Errorf("%s:%d names the environment variable %s, which no code reads", file, n+1, name)
				}
			}
		}
	}
}

// flagRow is a row of a flags table: | `-name ARG` | `A2A_NAME` | ….
var flagRow = regexp.MustCompile("^\\| `-([a-z][a-z0-9-]*)[^`]*` \\|(?: `(A2A_[A-Z0-9_]+)` \\|)?")

// TestDocumentedFlagsExist: every row of the agent's flag tables
// (docs/operating.md, docs/manifest.md, docs/storage.md, docs/limits.md)
// names a flag of host.Main, and a row that gives the flag's variable gives
// the one host.Main reads (host's TestMainHelpListsEnv checks the other
// way: every flag is in docs/operating.md).
func TestDocumentedFlagsExist(t *testing.T) {
	flags := hostFlags(t)
	all := docs(t)
	rows := 0
	for _, file := range []string{"docs/operating.md", "docs/manifest.md", "docs/storage.md", "docs/limits.md"} {
		text, ok := all[file]
		if !ok {
			t.Errorf("%s is missing", file)
			continue
		}
		for n, line := range strings.Split(text, "\n") {
			m := flagRow.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			rows++
			if !flags[m[1]] {
				t.Errorf("%s:%d documents -%s, which host.Main does not have", file, n+1, m[1])
			}
			if m[2] != "" && m[2] != host.EnvName(m[1]) {
				t.Errorf("%s:%d gives -%s the variable %s; host.Main reads %s", file, n+1, m[1], m[2], host.EnvName(m[1]))
			}
		}
	}
	if rows < 20 {
		t.Fatalf("found %d flag rows; is the pattern still right?", rows)
	}
}

// outsideCitation matches citations of the wire facts sheet the project
// was started from, which is not in the repository: "facts" and a
// section sign with a number, or its deviation list's "§13 #" and a
// number. Comments and docs cite the A2A specification, the proto or a
// document of the repository instead.
var outsideCitation = regexp.MustCompile(`facts (?:sheet )?§\d|§13 #\d`)

// TestNoCitationsOutsideTheRepository: no Go file or document cites a
// section of a document a reader of the repository cannot open.
func TestNoCitationsOutsideTheRepository(t *testing.T) {
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == ".git" || n == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, ".md") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for n, line := range strings.Split(string(b), "\n") {
			if m := outsideCitation.FindString(line); m != "" {
				t.Errorf("%s:%d cites %q, a document not in the repository: cite the A2A specification, the proto or a doc of the repository", strings.TrimPrefix(p, root+"/"), n+1, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
