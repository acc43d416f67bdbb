package main

import (
	"context"
	"strings"
	"testing"
)

// TestDemoDelegates: against the scripted model, the planner asks the
// specialist through a real A2A call and streams an answer that uses the
// specialist's.
func TestDemoDelegates(t *testing.T) {
	var out strings.Builder
	if err := run(context.Background(), "", "", "What to pack for Oslo?", &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{"[WORKING] Packing specialist: A warm coat, gloves, a hat and boots.", "Enjoy the trip!", "[COMPLETED]"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output lacks %q:\n%s", want, out.String())
		}
	}
}
