package runtime

import (
	"context"
	"encoding/base64"
	"testing"
)

// A new send key is 16 random bytes in unpadded base64url: 22 characters
// of the URL-safe alphabet, different every time; the context of a send
// carries it unchanged.
func TestNewSendKey(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		var b [sendKeyLen]byte
		newSendKey(&b)
		k := string(b[:])
		raw, err := base64.RawURLEncoding.Strict().DecodeString(k)
		if err != nil || len(raw) != 16 {
			t.Fatalf("key %q: %d bytes, %v; want 16 random bytes in base64url", k, len(raw), err)
		}
		if seen[k] {
			t.Fatalf("key %q made twice", k)
		}
		seen[k] = true
	}
	ctx := withNewSendKey(context.Background(), 2)
	k := sentKeyOf(ctx)
	if len(k) != sendKeyLen || sentKeyHeader(ctx)[0] != k || sendOf(ctx).retries != 2 {
		t.Fatalf("send context: key %q, header %q, retries %d", k, sentKeyHeader(ctx), sendOf(ctx).retries)
	}
	if other := sentKeyOf(withNewSendKey(context.Background(), 0)); other == k || sentKeyOf(ctx) != k {
		t.Fatalf("a second send's key %q; the first's now %q, was %q", other, sentKeyOf(ctx), k)
	}
}
