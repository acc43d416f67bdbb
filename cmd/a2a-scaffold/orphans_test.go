package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGenerateReportsOrphanLLMFiles: after a tool and an llm skill leave
// agent.yaml, generate warns about their files (tool_<name>.go,
// skill_<id>_llm.go), naming each and what to do, and leaves them in place.
func TestGenerateReportsOrphanLLMFiles(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "planner")
	manifestFile := filepath.Join(root, "testdata", "golden", "scaffold", "llm-tools", "agent.yaml")
	if r := runCLI(t, "", "new", "planner", "--manifest", manifestFile, "--dir", dir, "--a2agen", root); r.code != 0 {
		t.Fatalf("new: %+v", r)
	}
	manifestPath := filepath.Join(dir, "agent.yaml")
	src, err := os.ReadFile(manifestPath)
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	budget := text[strings.Index(text, "  - id: budget\n"):strings.Index(text, "  - id: ping\n")]
	for _, cut := range [][2]string{
		{budget, ""},
		{"tools: [lookup_weather, book-hotel]", "tools: [lookup_weather]"},
		{"  - name: book-hotel\n    description: Books a hotel room.\n", ""},
	} {
		if !strings.Contains(text, cut[0]) || cut[0] == "" {
			t.Fatalf("agent.yaml has no %q", cut[0])
		}
		text = strings.Replace(text, cut[0], cut[1], 1)
	}
	if err := os.WriteFile(manifestPath, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, "", "generate", "--dir", dir)
	if r.code != 0 {
		t.Fatalf("generate: %+v", r)
	}
	for _, want := range []string{
		"warning: tool_book_hotel.go: no tool of agent.yaml (tools:) uses this file any more",
		"warning: skill_budget_llm.go: no llm skill of agent.yaml uses this file any more",
		"delete it when you no longer need its",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("generate printed no %q:\n%s", want, r.stdout)
		}
	}
	for _, kept := range []string{"tool_book_hotel.go", "skill_budget_llm.go", "tool_lookup_weather.go"} {
		if _, err := os.Stat(filepath.Join(dir, kept)); err != nil {
			t.Errorf("generate removed %s: %v", kept, err)
		}
	}
	if strings.Contains(r.stdout, "tool_lookup_weather.go: no tool") || strings.Contains(r.stdout, "skill_plan_trip_llm.go: no") {
		t.Errorf("generate warned about a file of a tool or skill still in agent.yaml:\n%s", r.stdout)
	}
}
