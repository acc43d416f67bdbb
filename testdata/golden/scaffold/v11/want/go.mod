module example.com/generations

go 1.26.0

require github.com/a2agen/a2agen v0.1.0

require (
	google.golang.org/grpc v1.85.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)

// a2a-scaffold, at the same version: go tool a2a-scaffold generate
tool github.com/a2agen/a2agen/cmd/a2a-scaffold
