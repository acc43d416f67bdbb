package webhook

import (
	"net/http"
	"testing"
)

func TestTokenMatches(t *testing.T) {
	for _, tc := range []struct {
		name   string
		header http.Header
		token  string
		want   bool
	}{
		{"a2agen header", http.Header{"X-A2a-Notification-Token": {"s3cret"}}, "s3cret", true},
		{"SDK header", http.Header{"A2a-Notification-Token": {"s3cret"}}, "s3cret", true},
		{"wrong token", http.Header{"X-A2a-Notification-Token": {"s3cret!"}}, "s3cret", false},
		{"no header", http.Header{}, "s3cret", false},
		{"empty token never matches", http.Header{"X-A2a-Notification-Token": {""}}, "", false},
	} {
		if got := TokenMatches(tc.header, tc.token); got != tc.want {
			t.Errorf("%s: TokenMatches = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestReadDelivery(t *testing.T) {
	v1, err := ReadDelivery([]byte(`{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"}}}`))
	if err != nil || v1.TaskID() != "t1" {
		t.Fatalf("v1.0 delivery: %v, %v", v1, err)
	}
	v03, err := ReadDelivery([]byte(`{"kind":"status-update","taskId":"t2","contextId":"c2","final":true,"status":{"state":"completed"}}`))
	if err != nil || v03.TaskID() != "t2" {
		t.Fatalf("v0.3 delivery: %v, %v", v03, err)
	}
	if _, err := ReadDelivery([]byte(`{}`)); err == nil {
		t.Fatal("an empty object read as a delivery")
	}
	if _, err := ReadDelivery([]byte(`not json`)); err == nil {
		t.Fatal("text read as a delivery")
	}
}
