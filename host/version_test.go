package host_test

import (
	"context"
	"strings"
	"testing"

	"github.com/a2agen/a2agen/host"
	"github.com/a2agen/a2agen/internal/version"
)

// TestMainVersion: -version and --version print what the program was built
// from (version.Read) and exit 0 without serving; $A2A_VERSION is no
// variable of it (it would stop every start).
func TestMainVersion(t *testing.T) {
	cfg, _ := plainConfig(t)
	for _, arg := range []string{"-version", "--version"} {
		var stdout, stderr syncBuffer
		if code := host.Main(context.Background(), "weather", cfg, []string{arg}, &stdout, &stderr); code != 0 {
			t.Fatalf("%s: exit %d: %s", arg, code, stderr.String())
		}
		if want := version.Line("weather"); stdout.String() != want {
			t.Errorf("%s printed %q, want %q", arg, stdout.String(), want)
		}
		if !strings.HasPrefix(stdout.String(), "weather ") || !strings.Contains(stdout.String(), " commit ") {
			t.Errorf("%s printed %q: want the name, the version and the commit", arg, stdout.String())
		}
	}
	t.Setenv("A2A_VERSION", "true")
	out, stop := runMain(t, cfg, nil, 1)
	if strings.Contains(out, " commit ") {
		t.Errorf("with $A2A_VERSION set the agent printed its version: %q", out)
	}
	if code := stop(); code != 0 {
		t.Errorf("exit %d after a normal run", code)
	}
}
