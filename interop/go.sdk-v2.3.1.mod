// go.sdk-v2.3.1.mod builds ./sdkpeer against the official Go SDK v2.3.1, the
// last version whose v0.3 HTTP+JSON layer speaks the JSON-RPC object form
// (kind discriminators, snake_case keys), for the tests that keep a v2.3.1
// check (sdkpeerV231Bin): go build -modfile=go.sdk-v2.3.1.mod -tags sdk_v2_3 ./sdkpeer
// It lists only what ./sdkpeer imports; go.mod pins the SDK at v2.4.0.
module github.com/a2agen/a2agen/interop

go 1.26.0

require (
	github.com/a2aproject/a2a-go/v2 v2.3.1
	google.golang.org/grpc v1.85.0
)

require (
	github.com/a2aproject/a2a-go v0.3.15 // indirect
	github.com/google/uuid v1.6.0 // indirect
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/net v0.60.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.42.0 // indirect
	google.golang.org/genproto/googleapis/api v0.0.0-20261110000943-09e21b237f2c // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20261110000943-09e21b237f2c // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
