package host

import (
	"encoding/json"

	"github.com/a2agen/a2agen/runtime"
)

// interceptors are those of every binding: Config.Telemetry's outermost,
// so that spans, metrics and the request log see what the program's own
// interceptors do.
func interceptors(cfg Config) []runtime.Interceptor {
	if cfg.Telemetry == nil {
		return cfg.Interceptors
	}
	return append(append([]runtime.Interceptor(nil), cfg.Telemetry.Interceptors...), cfg.Interceptors...)
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
