package host

import (
	"encoding/json"
	"net/http"

	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/telemetry"
)

// withTelemetry adds what telemetry.FromEnvironment set up to cfg: its
// interceptors outermost (so that spans, metrics and the request log see
// what the program's own interceptors do), its server and push options,
// and its /metrics handler on every HTTP listener.
func withTelemetry(cfg *Config, tel *telemetry.Setup) {
	cfg.Interceptors = append(append([]runtime.Interceptor(nil), tel.Interceptors...), cfg.Interceptors...)
	cfg.ServerOptions = append(cfg.ServerOptions, tel.ServerOptions...)
	cfg.Push = append(cfg.Push, tel.PushOptions...)
	if h := tel.MetricsHandler; h != nil {
		routes := cfg.Routes
		cfg.Routes = func(mux *http.ServeMux) {
			mux.Handle("GET /metrics", h)
			if routes != nil {
				routes(mux)
			}
		}
	}
}

// cardName is the name of the agent card, the default service name of its
// telemetry ("" when the card does not decode; Start reports that).
func cardName(cardJSON []byte) string {
	var card struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(cardJSON, &card)
	return card.Name
}
