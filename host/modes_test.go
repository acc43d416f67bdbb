package host

import (
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

func TestMediaMatches(t *testing.T) {
	for _, tc := range []struct {
		offered  string
		accepted []string
		want     bool
	}{
		{"text/plain", []string{"text/plain"}, true},
		{"Text/Plain; charset=utf-8", []string{"text/plain"}, true},
		{"application/json", []string{"text/plain"}, false},
		{"image/png", []string{"image/*"}, true},
		{"image/png", []string{"*/*"}, true},
		{"application/json", []string{"text/*", "application/json; charset=utf-8"}, true},
		{"application/octet-stream", []string{"application/json"}, false},
		{"not a media type", []string{"text/plain"}, false},
	} {
		if got := mediaMatches(tc.offered, tc.accepted); got != tc.want {
			t.Errorf("mediaMatches(%q, %q) = %v, want %v", tc.offered, tc.accepted, got, tc.want)
		}
	}
}

func TestPartMediaType(t *testing.T) {
	data, _ := a2av1.NewDataPart(map[string]any{})
	data.MediaType = ""
	for _, tc := range []struct {
		part *a2av1.Part
		want string
	}{
		{a2av1.NewTextPart("x"), "text/plain"},
		{data, "application/json"},
		{a2av1.NewFilePart("a.bin", "", []byte{1}), "application/octet-stream"},
		{a2av1.NewFileURLPart("https://example.com/a.png", "a.png", "image/png"), "image/png"},
	} {
		if got := partMediaType(tc.part); got != tc.want {
			t.Errorf("partMediaType(%v) = %q, want %q", tc.part, got, tc.want)
		}
	}
}

func TestCheckModesNamesTheSkill(t *testing.T) {
	msg := &a2av1.Message{Parts: []*a2av1.Part{a2av1.NewTextPart("x"), a2av1.NewFilePart("", "image/png", nil), a2av1.NewFilePart("", "image/png", nil)}}
	err := checkInputModes("plan", msg, []string{"text/plain", "application/json"})
	if err == nil || err.Error() != "ContentTypeNotSupported: incompatible content types: offered image/png; accepted text/plain, application/json" {
		t.Fatalf("got %v", err)
	}
	if checkInputModes("plan", msg, nil) != nil {
		t.Error("a skill with no modes refused a message")
	}
	if checkOutputModes("plan", nil, []string{"text/plain"}) != nil {
		t.Error("a client without a preference was refused")
	}
	if err := checkOutputModes("plan", []string{"image/png"}, []string{"text/plain"}); err == nil {
		t.Error("a client accepting only image/png was served by a text skill")
	}
}
