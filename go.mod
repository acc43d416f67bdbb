module github.com/a2agen/a2agen

go 1.26.0

require (
	github.com/bufbuild/protocompile v0.14.1
	github.com/dave/jennifer v1.7.1
	github.com/google/go-cmp v0.7.0
	go.uber.org/goleak v1.3.0
	google.golang.org/genproto/googleapis/api v0.0.0-20261110000943-09e21b237f2c
	google.golang.org/genproto/googleapis/rpc v0.0.0-20261110000943-09e21b237f2c
	google.golang.org/grpc v1.85.0
	google.golang.org/protobuf v1.36.12
)

require (
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
)
