package runtime

import (
	"net/http"
)

// The HTTP+JSON tests serve the JSON-RPC fixture service (newTestService)
// with google.api.http rules added, written as protoc-gen-a2a compiles them:
//
//	Echo:   GET /echo/{text}, GET /{tenant}/echo/{text}, POST /echo (body *),
//	        GET /count/{count}
//	Send:   POST /send (body *), POST /{tenant}/send (body *),
//	        PUT /messages/{message.message_id} (body message)
//	Fail:   GET /fail/{fail}
//	Delete: DELETE /items/{text}
//	Stream: POST /stream (body *), GET /stream:watch
//	Block:  GET /block
var restTestDesc = func() *ServiceDesc {
	rules := map[string][]HTTPRule{
		"Echo": {
			{Method: http.MethodGet, Path: "/echo/{text=*}"},
			{Method: http.MethodGet, Path: "/{tenant=*}/echo/{text=*}"},
			{Method: http.MethodPost, Path: "/echo", Body: "*"},
			{Method: http.MethodGet, Path: "/count/{count=*}"},
		},
		"Send": {
			{Method: http.MethodPost, Path: "/send", Body: "*"},
			{Method: http.MethodPost, Path: "/{tenant=*}/send", Body: "*"},
			{Method: http.MethodPut, Path: "/messages/{message.message_id=*}", Body: "message"},
		},
		"Fail":   {{Method: http.MethodGet, Path: "/fail/{fail=*}"}},
		"Delete": {{Method: http.MethodDelete, Path: "/items/{text=*}"}},
		"Stream": {
			{Method: http.MethodPost, Path: "/stream", Body: "*"},
			{Method: http.MethodGet, Path: "/stream:watch"},
		},
		"Block": {{Method: http.MethodGet, Path: "/block"}},
	}
	d := &ServiceDesc{Name: testDesc.Name, ProtocolVersions: testDesc.ProtocolVersions}
	for _, op := range testDesc.Operations {
		op.HTTPRules = rules[op.Name]
		d.Operations = append(d.Operations, op)
	}
	return d
}()

// newRESTTestService is newTestService over restTestDesc.
func newRESTTestService(blockDone chan<- error) *Service {
	base := newTestService(blockDone)
	eps := make([]*Endpoint, len(base.Endpoints))
	for i, ep := range base.Endpoints {
		c := *ep
		c.Operation = restTestDesc.Operation(ep.Operation.Name)
		eps[i] = &c
	}
	return NewService(restTestDesc, eps...)
}

// restOp returns an operation of restTestDesc for client tests.
func restOp(name string) *Operation {
	op := restTestDesc.Operation(name)
	if op == nil {
		panic("no fixture operation " + name)
	}
	return op
}
