package runtime

import (
	"crypto/rand"
	"encoding/hex"
	"time"
)

// NewUUID returns a UUIDv7 (RFC 9562): a millisecond timestamp followed by
// 74 random bits. Ids made later sort after earlier ones, which keeps ties
// in listings (equal timestamps) close to creation order. The server uses
// it for task, context and message ids, the client helpers of package a2av1
// for message ids.
func NewUUID() string {
	var s [36]byte
	return string(AppendUUID(s[:0]))
}

// AppendUUID appends a new UUIDv7 (as NewUUID returns) to b: several ids
// made at once can share one allocation.
func AppendUUID(b []byte) []byte {
	var u [16]byte
	ms := uint64(time.Now().UnixMilli())
	u[0], u[1], u[2] = byte(ms>>40), byte(ms>>32), byte(ms>>24)
	u[3], u[4], u[5] = byte(ms>>16), byte(ms>>8), byte(ms)
	_, _ = rand.Read(u[6:]) // never fails (crypto/rand since Go 1.24)
	u[6] = u[6]&0x0f | 0x70 // version 7
	u[8] = u[8]&0x3f | 0x80 // RFC 9562 variant
	n := len(b)
	b = append(b, "00000000-0000-0000-0000-000000000000"...)
	s := b[n:]
	hex.Encode(s[0:8], u[0:4])
	hex.Encode(s[9:13], u[4:6])
	hex.Encode(s[14:18], u[6:8])
	hex.Encode(s[19:23], u[8:10])
	hex.Encode(s[24:], u[10:])
	return b
}
