package main

import (
	"strings"
	"testing"
)

// TestDemoRunsEveryOperationOnEveryBinding runs the demo as `make demo-bindings`
// does and checks that each binding's exchange reached its last operation.
func TestDemoRunsEveryOperationOnEveryBinding(t *testing.T) {
	var out strings.Builder
	if err := run("127.0.0.1:0", "127.0.0.1:0", false, &out); err != nil {
		t.Fatalf("demo failed: %v\n%s", err, out.String())
	}
	text := out.String()
	for _, want := range []string{"== JSONRPC client", "== HTTP+JSON client", "== GRPC client"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if n := strings.Count(text, "11. DeleteTaskPushNotificationConfig  {}"); n != 3 {
		t.Errorf("%d bindings completed all eleven operations, want 3:\n%s", n, text)
	}
	if strings.Contains(text, "error:") {
		t.Errorf("an operation failed:\n%s", text)
	}
}
