package a2av03_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/a2agen/a2agen/compat/a2av03"
	"github.com/a2agen/a2agen/runtime"
)

// FuzzV03Decode feeds arbitrary JSON to the decoders of v0.3 input (results
// and stream events a v0.3 agent sends, message/send params a v0.3 client
// sends): they never panic, fail only with InvalidParams, and what they
// accept converts back to v0.3.
func FuzzV03Decode(f *testing.F) {
	for _, s := range []string{
		`{"kind":"task","id":"t","contextId":"c","status":{"state":"working","timestamp":"2026-12-01T10:00:00Z"}}`,
		`{"kind":"message","messageId":"m","role":"agent","parts":[{"kind":"file","file":{"bytes":"aGk=","name":"x"}},{"kind":"data","data":{"a":1}}]}`,
		`{"kind":"status-update","taskId":"t","contextId":"c","status":{"state":"completed"},"final":true}`,
		`{"kind":"artifact-update","taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"kind":"text","text":""}]},"append":true}`,
		`{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"hi"}]},"configuration":{"blocking":false,"pushNotificationConfig":{"url":"https://h","authentication":{"schemes":[]}}}}`,
		`{"kind":"task","status":{"state":"TASK_STATE_WORKING"}}`, `[]`, `null`, `{"kind":7}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if ev, err := a2av03.EventToV1(data, "result"); err != nil {
			if !errors.Is(err, runtime.ErrInvalidParams) {
				t.Fatalf("EventToV1: %v, want InvalidParams", err)
			}
		} else if _, err := a2av03.EventFromV1(ev); err != nil && ev.GetPayload() != nil {
			t.Fatalf("an accepted event does not convert back: %v", err)
		}
		var p a2av03.MessageSendParams
		if json.Unmarshal(data, &p) != nil {
			return
		}
		if req, err := a2av03.SendParamsToV1(&p); err != nil {
			if !errors.Is(err, runtime.ErrInvalidParams) {
				t.Fatalf("SendParamsToV1: %v, want InvalidParams", err)
			}
		} else if _, err := a2av03.SendParamsFromV1(req); err != nil {
			t.Fatalf("accepted params do not convert back: %v", err)
		}
	})
}
