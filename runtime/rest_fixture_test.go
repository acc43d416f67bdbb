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
	one := func(field string, start int) PathVariable {
		return PathVariable{FieldPath: field, Start: start, End: start + 1}
	}
	rules := map[string][]HTTPRule{
		"Echo": {
			{Method: http.MethodGet, Path: "/echo/{text=*}", Pattern: PathPattern{Segments: []string{"echo", "*"}, Variables: []PathVariable{one("text", 1)}}},
			{Method: http.MethodGet, Path: "/{tenant=*}/echo/{text=*}", Pattern: PathPattern{Segments: []string{"*", "echo", "*"}, Variables: []PathVariable{one("tenant", 0), one("text", 2)}}},
			{Method: http.MethodPost, Path: "/echo", Body: "*", Pattern: PathPattern{Segments: []string{"echo"}}},
			{Method: http.MethodGet, Path: "/count/{count=*}", Pattern: PathPattern{Segments: []string{"count", "*"}, Variables: []PathVariable{one("count", 1)}}},
		},
		"Send": {
			{Method: http.MethodPost, Path: "/send", Body: "*", Pattern: PathPattern{Segments: []string{"send"}}},
			{Method: http.MethodPost, Path: "/{tenant=*}/send", Body: "*", Pattern: PathPattern{Segments: []string{"*", "send"}, Variables: []PathVariable{one("tenant", 0)}}},
			{Method: http.MethodPut, Path: "/messages/{message.message_id=*}", Body: "message", Pattern: PathPattern{Segments: []string{"messages", "*"}, Variables: []PathVariable{one("message.message_id", 1)}}},
		},
		"Fail":   {{Method: http.MethodGet, Path: "/fail/{fail=*}", Pattern: PathPattern{Segments: []string{"fail", "*"}, Variables: []PathVariable{one("fail", 1)}}}},
		"Delete": {{Method: http.MethodDelete, Path: "/items/{text=*}", Pattern: PathPattern{Segments: []string{"items", "*"}, Variables: []PathVariable{one("text", 1)}}}},
		"Stream": {
			{Method: http.MethodPost, Path: "/stream", Body: "*", Pattern: PathPattern{Segments: []string{"stream"}}},
			{Method: http.MethodGet, Path: "/stream:watch", Pattern: PathPattern{Segments: []string{"stream"}, Verb: "watch"}},
		},
		"Block": {{Method: http.MethodGet, Path: "/block", Pattern: PathPattern{Segments: []string{"block"}}}},
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
