package main

import (
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/version"
)

// TestVersion: --version names what the command was built from
// (version.Read) and the A2A protocol version it speaks.
func TestVersion(t *testing.T) {
	want := version.Line("a2a") + "A2A protocol " + a2av1.A2AServiceDesc.ProtocolVersion() + "\n"
	if got := ok(t, "--version"); got != want {
		t.Errorf("--version printed %q, want %q", got, want)
	}
}
