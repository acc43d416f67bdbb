package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDemo runs `make demo` as a newcomer would (from the repository root)
// and checks that every skill answered on every binding. It builds the
// scaffolded project, so it is skipped with -short.
func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a scaffolded project")
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join(wd, "..", ".."))
	var out strings.Builder
	if err := run(false, &out); err != nil {
		t.Fatalf("demo failed: %v\n%s", err, out.String())
	}
	text := out.String()
	for _, binding := range []string{"JSONRPC", "HTTP+JSON", "GRPC"} {
		if n := strings.Count(text, "$ "+binding+" "); n != 2 {
			t.Errorf("%s: %d skills called, want 2:\n%s", binding, n, text)
		}
	}
	if n := strings.Count(text, "TASK_STATE_COMPLETED"); n != 6 {
		t.Errorf("%d completed tasks, want 6:\n%s", n, text)
	}
	// plan-trip is typed: its JSON example went as a data part, and data
	// without the city was refused naming it.
	if n := strings.Count(text, `SendMessage data {"city":"Lisbon","days":3} to skill plan-trip`); n != 3 {
		t.Errorf("plan-trip got its data example %d times, want 3:\n%s", n, text)
	}
	if n := strings.Count(text, "data {} to skill plan-trip: InvalidParams: skill \"plan-trip\": the data does not match its input schema: data.city: required"); n != 3 {
		t.Errorf("data without city refused %d times, want 3:\n%s", n, text)
	}
	if strings.Contains(text, "18080") {
		t.Errorf("the demo used the manifest's fixed port instead of a free one:\n%s", text)
	}
}
