package a2av03grpc

import (
	"errors"
	"strings"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// v1Service checks the v1.0 form of every v0.3 request against v1.0's
// required fields before the handler sees it. The v0.3 proto marks few
// fields REQUIRED (a message without parts, role or id is a valid v0.3
// message), but the handler behind serves v1.0 and relies on its bindings
// having checked v1.0's, as the JSON v0.3 layer checks its converted
// requests.
var v1Service = runtime.NewService(&a2av1.A2AServiceDesc)

// v03Names maps the JSON names of v1.0 fields that v0.3 names otherwise.
var v03Names = map[string]string{
	"parts":                      "content",          // Message.content
	"taskPushNotificationConfig": "pushNotification", // SendMessageConfiguration.push_notification
	"scheme":                     "schemes",          // AuthenticationInfo.schemes
}

// checkV1 validates r, the v1.0 form of a v0.3 request, and names every
// missing field by its v0.3 path: prefix, then r's path with v0.3's names.
func checkV1(r proto.Message, prefix string) error {
	err := v1Service.Validate(r)
	var e *runtime.Error
	if err == nil || !errors.As(err, &e) {
		return err
	}
	vs := e.FieldViolations()
	names := make([]string, len(vs))
	for i := range vs {
		segs := strings.Split(vs[i].Field, ".")
		for j, s := range segs {
			if n, ok := v03Names[s]; ok {
				segs[j] = n
			}
		}
		vs[i].Field = prefix + strings.Join(segs, ".")
		names[i] = vs[i].Field
	}
	return runtime.InvalidParams("missing required field(s): "+strings.Join(names, ", "), vs...)
}
