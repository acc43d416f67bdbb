package runtime

import (
	"crypto/rand"
	"encoding/base64"
)

// sendKeyLen is the length of a key newSendKey makes.
const sendKeyLen = 22

// newSendKey fills b with a new Idempotency-Key: 16 random bytes (128
// bits, more than a UUIDv7's 74) in unpadded base64url. The key is a
// header every send carries, and on gRPC a value new to the connection's
// HPACK tables each time, Huffman-coded by the client and decoded by the
// server character by character: 22 characters cost less than a UUID's
// 36 (docs/performance.md, "The Idempotency-Key and the resumable
// stream on gRPC").
func newSendKey(b *[sendKeyLen]byte) {
	var r [16]byte
	_, _ = rand.Read(r[:]) // never fails (crypto/rand since Go 1.24)
	base64.RawURLEncoding.Encode(b[:], r[:])
}
