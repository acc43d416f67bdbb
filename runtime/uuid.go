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
	var b [16]byte
	ms := uint64(time.Now().UnixMilli())
	b[0], b[1], b[2] = byte(ms>>40), byte(ms>>32), byte(ms>>24)
	b[3], b[4], b[5] = byte(ms>>16), byte(ms>>8), byte(ms)
	_, _ = rand.Read(b[6:]) // never fails (crypto/rand since Go 1.24)
	b[6] = b[6]&0x0f | 0x70 // version 7
	b[8] = b[8]&0x3f | 0x80 // RFC 9562 variant
	var s [36]byte
	hex.Encode(s[0:8], b[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], b[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], b[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], b[8:10])
	s[23] = '-'
	hex.Encode(s[24:], b[10:])
	return string(s[:])
}
