package runtime

import (
	"strconv"

	"google.golang.org/grpc/codes"
)

// grpcCodeNames are the status code names of the gRPC specification
// (grpc-go's String() is CamelCase).
var grpcCodeNames = [...]string{
	"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
	"PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
	"UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
}

// GRPCCodeName is the name the gRPC specification gives status code c
// ("NOT_FOUND"), or its number for a code it does not name.
func GRPCCodeName(c codes.Code) string {
	if int(c) < len(grpcCodeNames) {
		return grpcCodeNames[c]
	}
	return strconv.Itoa(int(c))
}
