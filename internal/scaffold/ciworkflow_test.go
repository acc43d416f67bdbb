package scaffold

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/a2agen/a2agen/internal/manifest"
)

// TestCIWorkflow checks the CI a standalone project gets: a GitHub Actions
// workflow, regenerated with the project, that checks the code out, sets up
// Go from go.mod and runs make test and then make test-race — both targets
// of the project's own Makefile. A package of another module gets none.
func TestCIWorkflow(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "golden", "scaffold", "minimal", ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Parse(ManifestFile, data)
	if err != nil {
		t.Fatal(err)
	}
	files := func(standalone bool) map[string][]byte {
		fs, err := Files(m, ProjectOptions{Module: m.Module, Standalone: standalone, A2agenVersion: "v0.1.0", Manifest: data})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]byte{}
		for _, f := range fs {
			out[f.Path] = f.Data
			if f.Path == ciWorkflowFile && !f.Generated {
				t.Errorf("%s is not marked generated", f.Path)
			}
		}
		return out
	}
	got := files(true)
	raw, ok := got[ciWorkflowFile]
	if !ok {
		t.Fatalf("a standalone project has no %s", ciWorkflowFile)
	}
	if !IsGenerated(raw) {
		t.Errorf("%s lacks the generated header", ciWorkflowFile)
	}
	var wf struct {
		On   map[string]any `yaml:"on"`
		Jobs map[string]struct {
			RunsOn string `yaml:"runs-on"`
			Steps  []struct {
				Uses string            `yaml:"uses"`
				Run  string            `yaml:"run"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(raw, &wf); err != nil {
		t.Fatalf("%s is not YAML: %v", ciWorkflowFile, err)
	}
	if _, ok := wf.On["push"]; !ok {
		t.Errorf("the workflow does not run on push: %v", wf.On)
	}
	if _, ok := wf.On["pull_request"]; !ok {
		t.Errorf("the workflow does not run on pull requests: %v", wf.On)
	}
	job, ok := wf.Jobs["test"]
	if !ok || job.RunsOn == "" {
		t.Fatalf("no test job with a runner: %+v", wf.Jobs)
	}
	var uses, runs []string
	goFromMod := false
	for _, s := range job.Steps {
		if s.Uses != "" {
			uses = append(uses, s.Uses)
		}
		if strings.HasPrefix(s.Uses, "actions/setup-go@") && s.With["go-version-file"] == "go.mod" {
			goFromMod = true
		}
		if s.Run != "" {
			runs = append(runs, s.Run)
		}
	}
	if len(uses) < 2 || !strings.HasPrefix(uses[0], "actions/checkout@") || !goFromMod {
		t.Errorf("steps use %v: want actions/checkout, then actions/setup-go with go-version-file go.mod", uses)
	}
	if strings.Join(runs, "; ") != "make test; make test-race" {
		t.Errorf("steps run %q, want make test, then make test-race", runs)
	}
	makefile := string(got["Makefile"])
	for _, target := range []string{"test", "test-race"} {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(target) + `:`).MatchString(makefile) {
			t.Errorf("the workflow runs make %s, which the project's Makefile lacks", target)
		}
	}
	if _, ok := files(false)[ciWorkflowFile]; ok {
		t.Errorf("a package of another module got %s (its module's CI tests it)", ciWorkflowFile)
	}
}
