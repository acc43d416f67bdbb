package gen

import (
	"fmt"

	"github.com/a2agen/a2agen/internal/binding"
)

// emitRESTHandler writes New<S>RESTHandler, which serves the Handler over
// the HTTP+JSON binding from the compiled google.api.http rules.
func (e *serviceEmitter) emitRESTHandler() {
	e.emitHTTPHandler(binding.HTTPJSON, "NewRESTHandler", func(name string) string {
		return fmt.Sprintf("%s serves h over the A2A HTTP+JSON (REST) binding: every rpc on the routes of its google.api.http rules "+
			"(see %s), server-streaming rpcs with Server-Sent Events, errors as google.rpc.Status JSON. "+
			"Mount it at the URL of the agent card's HTTP+JSON interface: on an http.ServeMux with a subtree pattern "+
			"(mux.Handle(\"/a2a/rest/\", h)) the prefix is removed automatically; elsewhere pass runtime.WithPathPrefix.", name, e.n.Desc)
	})
}

// emitRESTClient writes New<S>RESTClient, a Client over the HTTP+JSON
// binding.
func (e *serviceEmitter) emitRESTClient() {
	e.emitHTTPClient(binding.HTTPJSON, "baseURL", "NewRESTTransport", func(name string) string {
		return fmt.Sprintf("%s returns a client of the %s service that calls the agent's HTTP+JSON (REST) interface at baseURL "+
			"(the url of the agent card's HTTP+JSON interface; routes are appended to it). "+
			"Paths are built from the same compiled google.api.http rules the server routes with; "+
			"runtime.WithClientTenant selects the /{tenant} routes.", name, e.fullName())
	})
}
