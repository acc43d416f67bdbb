package host

import (
	"github.com/a2agen/a2agen/compat/a2av03"
	"github.com/a2agen/a2agen/server/push"
)

// V03PushOptions are the webhook sender options that post notifications to
// the push configs registered through A2A v0.3 in the v0.3 form (the Task,
// a2av03.PushPayload), as Config.V03 adds them. A program that builds its
// own sender or server and serves v0.3 with V03HandlerOptions gives them to
// push.NewSender or server.WithPushOptions; without them such configs are
// posted the task in the v1.0 form, {"task": …}, which v0.3 receivers do
// not read.
func V03PushOptions() []push.Option {
	return []push.Option{push.WithPayloadEncoder(a2av03.Version, a2av03.PushPayload)}
}
