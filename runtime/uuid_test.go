package runtime

import (
	"regexp"
	"testing"
)

var uuidV7 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// AppendUUID appends one UUIDv7 to what b holds; NewUUID is one of them.
func TestAppendUUID(t *testing.T) {
	b := AppendUUID(AppendUUID([]byte("x:")))
	if len(b) != 2+72 || string(b[:2]) != "x:" {
		t.Fatalf("AppendUUID twice after %q: %q", "x:", b)
	}
	for _, id := range []string{string(b[2:38]), string(b[38:]), NewUUID()} {
		if !uuidV7.MatchString(id) {
			t.Errorf("%q is not a UUIDv7", id)
		}
	}
	if string(b[2:38]) == string(b[38:]) {
		t.Errorf("two equal ids: %q", b)
	}
}
