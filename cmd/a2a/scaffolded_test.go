package main

import (
	"strings"
	"testing"

	"github.com/a2agen/a2agen/internal/proctest"
	"github.com/a2agen/a2agen/runtime"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// TestSkillReachesAScaffoldedAgent runs the built a2a against
// examples/travel-agent, an agent a2a-scaffold made, on every binding,
// anonymous and with its partner token: without --skill its route.go sends
// a message to plan-trip; --skill packing-list reaches packing-list through
// the metadata key its generated routing reads, --metadata travels along,
// and --skill book-trip reaches the partners-only skill with --bearer.
func TestSkillReachesAScaffoldedAgent(t *testing.T) {
	bin, err := proctest.Executable("../..", "./examples/travel-agent")
	if err != nil {
		t.Fatal(err)
	}
	p := proctest.Start(t, bin, proctest.Options{
		Args: []string{"-store", "memory", "-listen", "127.0.0.1:18080=127.0.0.1:0", "-listen", "127.0.0.1:19090=127.0.0.1:0"},
		Env:  []string{"TRAVEL_AGENT_TOKEN=partner-t0ken"},
	})
	base := strings.TrimSuffix(p.Endpoints["card"], runtime.AgentCardPath)
	// The card keeps agent.yaml's addresses (-listen moves only the
	// listeners): a card file names where this run listens.
	card := writeCardFile(t, base, func(c *a2av1.AgentCard) {
		for _, i := range c.SupportedInterfaces {
			i.Url = p.Endpoints[i.GetProtocolBinding()]
		}
	})
	for _, b := range bindingFlags {
		for _, auth := range [][]string{nil, {"--bearer", "partner-t0ken"}} {
			send := func(args ...string) cliRun {
				return run0(t, append(append([]string{"--transport", b, "send", "-a", card}, auth...), args...)...)
			}
			expect(t, send("a weekend in Oslo"), 0, "Itinerary for Oslo")
			r := send("--skill", "packing-list", "--metadata", `{"trip":"weekend"}`, "a weekend in Oslo", "--debug")
			expect(t, r, 0, "For Oslo, pack", `"a2a-scaffold/skill":"packing-list"`, `"trip":"weekend"`)
			if strings.Contains(r.stdout, "Itinerary") {
				t.Errorf("%s: --skill packing-list went to plan-trip:\n%s", b, r.stdout)
			}
		}
		r := run0(t, "--transport", b, "send", "-a", card, "--bearer", "partner-t0ken", "--skill", "book-trip", "3 days in Lisbon")
		if strings.Contains(r.stdout, "Itinerary") || strings.Contains(r.stdout, "pack") {
			t.Errorf("%s: --skill book-trip reached another skill:\n%s", b, r.stdout)
		}
		// Without the token the skill is not this caller's: the agent
		// says so, and the error carries A2A's name.
		expect(t, cli(t, cliOpts{}, "--transport", b, "send", "-a", card, "--skill", "book-trip", "3 days in Lisbon"), exitFail, "InvalidParamsError", `unknown skill "book-trip"`)
	}
}
