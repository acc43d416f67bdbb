package a2av03

import (
	"io"

	"github.com/a2agen/a2agen/runtime"
)

// innerTransport is the runtime transport a v0.3 client transport (JSON-RPC
// or HTTP+JSON) calls through, once each call is in its v0.3 form.
type innerTransport struct{ inner runtime.ClientTransport }

// Close closes the runtime transport underneath when it holds something.
func (t innerTransport) Close() error {
	if c, ok := t.inner.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
