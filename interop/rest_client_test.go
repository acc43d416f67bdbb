package interop

import (
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// newRESTClient builds a2agen's HTTP+JSON client for the interface at baseURL.
func newRESTClient(_ *testing.T, baseURL string, opts ...runtime.ClientOption) a2av1.A2AServiceClient {
	return a2av1.NewA2AServiceRESTClient(baseURL, opts...)
}
