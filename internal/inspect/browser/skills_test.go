package browser

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/a2agen/a2agen/internal/proctest"
)

// startTravelAgent runs examples/travel-agent (a2a-scaffold's example: a
// bearer scheme, a typed skill) on free loopback ports and serves its card
// with the interface URLs of this run (the card keeps agent.yaml's
// addresses; -listen moves only the listeners). It returns the URL the card
// is served under.
func startTravelAgent(t *testing.T) string {
	t.Helper()
	bin, err := proctest.Executable(repoRoot, "./examples/travel-agent")
	if err != nil {
		t.Fatal(err)
	}
	p := proctest.Start(t, bin, proctest.Options{
		Args: []string{"-store", "memory", "-listen", "127.0.0.1:18080=127.0.0.1:0", "-listen", "127.0.0.1:19090=127.0.0.1:0"},
		Env:  []string{"TRAVEL_AGENT_TOKEN=partner-t0ken"},
	})
	resp, err := http.Get(p.Endpoints["card"])
	if err != nil {
		t.Fatal(err)
	}
	doc, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	var card map[string]any
	if err := json.Unmarshal(doc, &card); err != nil {
		t.Fatal(err)
	}
	for _, i := range card["supportedInterfaces"].([]any) {
		iface := i.(map[string]any)
		iface["url"] = p.Endpoints[iface["protocolBinding"].(string)]
	}
	moved, _ := json.Marshal(card)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(moved)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestTypedSkillForm drives the plan-trip form of a scaffolded agent: bad
// input is refused in the page, with the problems on their fields and
// nothing sent; good input is sent as a data part and the itinerary comes
// back; with the partner token from the Auth view the extended card shows
// the partners-only skill.
func TestTypedSkillForm(t *testing.T) {
	needChromium(t)
	agent := startTravelAgent(t)
	s := startInspector(t, agent)
	ctx := browser(t)
	run(t, ctx, "open the card",
		chromedp.Navigate(s.URL()),
		chromedp.WaitVisible(css(`.card-name`)))
	if name := text(t, ctx, `.card-name`); name != "Travel Agent" {
		t.Fatalf("card name %q", name)
	}
	run(t, ctx, "bad input",
		tab("skills"),
		chromedp.WaitVisible(css(`#skill-form-plan-trip`)),
		chromedp.SetValue(css(`#skill-plan-trip-days`), "2.5"),
		chromedp.Click(css(`#skill-send-plan-trip`)),
		chromedp.WaitVisible(css(`#skill-plan-trip-city-error`)))
	if e := text(t, ctx, `#skill-plan-trip-city-error`); !strings.Contains(e, "required") {
		t.Errorf("city error %q", e)
	}
	if e := text(t, ctx, `#skill-plan-trip-days-error`); !strings.Contains(e, "whole number") {
		t.Errorf("days error %q", e)
	}
	if n := eval[int](t, ctx, `[...document.querySelectorAll("#wire li.request")].filter(li => /SendMessage|SendStreamingMessage/.test(li.textContent)).length`); n != 0 {
		t.Errorf("the refused form sent %d message(s)", n)
	}
	shot(t, ctx, "skills")
	run(t, ctx, "good input",
		chromedp.SetValue(css(`#skill-plan-trip-city`), `"Lisbon"`),
		chromedp.SetValue(css(`#skill-plan-trip-days`), "3"),
		chromedp.Click(css(`#skill-send-plan-trip`)),
		chromedp.WaitVisible(css(`#skill-result-plan-trip .state.completed`)))
	if r := text(t, ctx, `#skill-result-plan-trip`); !strings.Contains(r, "Lisbon") {
		t.Errorf("the plan-trip result: %q", r)
	}
	run(t, ctx, "the extended card with the partner token",
		tab("auth"),
		chromedp.SetValue(css(`#auth-scheme-partnerToken`), "partner-t0ken"),
		chromedp.Click(css(`#auth-apply`)),
		chromedp.WaitVisible(css(`#auth-applied li`)),
		tab("card"),
		chromedp.Click(css(`#get-extended`)),
		chromedp.WaitVisible(css(`#extended-json`)))
	if ext := text(t, ctx, `#extended-view`); !strings.Contains(ext, "book-trip") {
		t.Errorf("the extended card: %q", ext)
	}
}
