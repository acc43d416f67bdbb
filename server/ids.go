package server

import (
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/a2agen/a2agen/runtime"
)

// newID returns a UUIDv7 (runtime.NewUUID): ids of tasks created later
// sort after earlier ones.
func newID() string { return runtime.NewUUID() }

// newIDPair returns two ids as newID does, in one allocation: a new task's
// id and its generated context id.
func newIDPair() (string, string) {
	var buf [72]byte
	s := string(runtime.AppendUUID(runtime.AppendUUID(buf[:0])))
	return s[:36], s[36:]
}

// now returns the current time as a status timestamp, truncated to the
// millisecond: A2A wants RFC 3339 timestamps with millisecond precision, and
// listing order and page tokens then agree with what clients see.
func now() *timestamppb.Timestamp {
	return timestamppb.New(time.Now().UTC().Truncate(time.Millisecond))
}
