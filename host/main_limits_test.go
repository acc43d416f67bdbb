package host_test

import (
	"context"
	"net/http"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/a2agen/a2agen/host"
)

// TestMainLimitFlags: every limit is a flag and a variable of Main, with
// the precedence of the other flags — the command line over the variable
// over the program's Config.Limits — seen on the wire: a 16 KiB header is
// refused (431) under a 1 KiB MaxHeaderBytes and served under 64 KiB.
func TestMainLimitFlags(t *testing.T) {
	t.Setenv("A2A_MAX_HEADER_BYTES", "")
	for _, tc := range []struct {
		name   string
		config int    // Config.Limits.MaxHeaderBytes
		env    string // A2A_MAX_HEADER_BYTES
		args   []string
		want   int
	}{
		{"config", 1 << 10, "", nil, http.StatusRequestHeaderFieldsTooLarge},
		{"variable over config", 1 << 10, "64KiB", nil, http.StatusOK},
		{"variable", 0, "1KiB", nil, http.StatusRequestHeaderFieldsTooLarge},
		{"flag over variable", 0, "1KiB", []string{"-max-header-bytes", "64KiB"}, http.StatusOK},
		{"flag over config", 1 << 10, "", []string{"-max-header-bytes=65536"}, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("A2A_MAX_HEADER_BYTES", tc.env)
			cfg, addr := plainConfig(t)
			cfg.Limits.MaxHeaderBytes = tc.config
			_, stop := runMain(t, cfg, tc.args, 3)
			defer stop()
			req, err := http.NewRequest(http.MethodGet, "http://"+addr+host.HealthzPath, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("X-Padding", strings.Repeat("p", 16<<10))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Errorf("16 KiB header: %d, want %d", resp.StatusCode, tc.want)
			}
		})
	}
}

// TestMainLimitFlagErrors: a bad limit, from the command line or the
// environment, ends Main with exit 2 and a line naming the flag or the
// variable and what it takes.
func TestMainLimitFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{nil, []string{"-max-body-bytes", "0"}, `invalid value "0" for flag -max-body-bytes: must be at least 1`},
		{nil, []string{"-write-timeout", "-1s"}, `invalid value "-1s" for flag -write-timeout: must not be negative (0 means no bound)`},
		{map[string]string{"A2A_MAX_BODY_BYTES": "8MB"}, nil, `agent: $A2A_MAX_BODY_BYTES="8MB": invalid value for -max-body-bytes: not a size such as 65536, 64KiB or 8MiB`},
		{map[string]string{"A2A_MAX_CONCURRENT_STREAMS": "many"}, nil, `agent: $A2A_MAX_CONCURRENT_STREAMS="many": invalid value for -max-concurrent-streams: not a whole number`},
		{map[string]string{"A2A_IDLE_TIMEOUT": "soon"}, nil, `agent: $A2A_IDLE_TIMEOUT="soon": invalid value for -idle-timeout: not a duration`},
	} {
		for k, v := range tc.env {
			t.Setenv(k, v)
		}
		cfg, _ := plainConfig(t)
		var stdout, stderr syncBuffer
		code := host.Main(context.Background(), "agent", cfg, append([]string{"-store", "memory"}, tc.args...), &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v %q: exit %d, stderr:\n%s\nwant exit 2 and %q", tc.env, tc.args, code, stderr.String(), tc.want)
		}
		for k := range tc.env {
			t.Setenv(k, "")
		}
	}
}

// TestMainHelpListsLimits: -help lists the flag of every field of Limits
// with its variable and its default (the program's limits), and
// docs/limits.md and docs/operating.md name every one of them.
func TestMainHelpListsLimits(t *testing.T) {
	cfg, _ := plainConfig(t)
	cfg.Limits.WriteTimeout = 7e9
	var stdout, stderr syncBuffer
	if code := host.Main(context.Background(), "agent", cfg, []string{"-help"}, &stdout, &stderr); code != 0 {
		t.Fatalf("-help: exit %d", code)
	}
	help := stderr.String()
	limitsDoc, err := os.ReadFile("../docs/limits.md")
	if err != nil {
		t.Fatal(err)
	}
	operating, err := os.ReadFile("../docs/operating.md")
	if err != nil {
		t.Fatal(err)
	}
	for f := range reflect.TypeFor[host.Limits]().Fields() {
		name := host.LimitFlagName(f.Name)
		if !strings.Contains(help, "  -"+name+" ") || !strings.Contains(help, ", $"+host.EnvName(name)+"\n") {
			t.Errorf("-help does not list -%s with $%s:\n%s", name, host.EnvName(name), help)
		}
		for doc, text := range map[string][]byte{"docs/limits.md": limitsDoc, "docs/operating.md": operating} {
			if !strings.Contains(string(text), "`-"+name) || !strings.Contains(string(text), host.EnvName(name)) {
				t.Errorf("%s does not name -%s and %s", doc, name, host.EnvName(name))
			}
		}
	}
	for _, want := range []string{
		"  -max-body-bytes size, $A2A_MAX_BODY_BYTES\n",
		"(default 8MiB)",
		"  -write-timeout duration, $A2A_WRITE_TIMEOUT\n",
		"(default 7s)",
		"  -max-concurrent-streams number, $A2A_MAX_CONCURRENT_STREAMS\n",
	} {
		if !strings.Contains(help, want) {
			t.Errorf("-help does not contain %q:\n%s", want, help)
		}
	}
}
