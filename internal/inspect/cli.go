package inspect

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// cliCommand is the `a2a` command line (docs/cli.md) that makes the same
// call, or "" for calls it has no command for. Secrets never appear:
// credentials go in A2ACLI_BEARER / A2ACLI_API_KEY, which the command line
// leaves to the reader.
func cliCommand(agentURL string, iface *a2av1.AgentInterface, in *callRequest, req proto.Message) string {
	var args []string
	flags := []string{"-a", agentURL}
	if b, err := runtime.ParseBinding(iface.GetProtocolBinding()); err == nil && b.Known() {
		flags = append(flags, "--transport", b.Option())
	}
	if in.Version != "" {
		flags = append(flags, "--a2a-version", in.Version)
	}
	for _, e := range in.Extensions {
		flags = append(flags, "--extension", e)
	}
	switch r := req.(type) {
	case *a2av1.SendMessageRequest:
		args = []string{"send"}
		if in.Operation == "SendStreamingMessage" {
			flags = append(flags, "--stream")
		}
		m := r.GetMessage()
		if m.GetTaskId() != "" {
			flags = append(flags, "--task-id", m.GetTaskId())
		}
		if m.GetContextId() != "" {
			flags = append(flags, "--context-id", m.GetContextId())
		}
		if md := m.GetMetadata(); md != nil {
			if skill, ok := md.GetFields()["a2a-scaffold/skill"]; ok && len(md.GetFields()) == 1 {
				flags = append(flags, "--skill", skill.GetStringValue())
			} else if b, err := runtime.MarshalJSON(md); err == nil {
				flags = append(flags, "--metadata", string(b))
			}
		}
		for _, p := range m.GetParts() {
			switch c := p.GetContent().(type) {
			case *a2av1.Part_Text:
				flags = append(flags, "--text", c.Text)
			case *a2av1.Part_Data:
				if b, err := runtime.MarshalJSON(c.Data); err == nil {
					flags = append(flags, "--data", string(b))
				}
			case *a2av1.Part_Url:
				flags = append(flags, "--file", c.Url)
			case *a2av1.Part_Raw:
				name := p.GetFilename()
				if name == "" {
					name = "FILE"
				}
				flags = append(flags, "--file", name)
			}
		}
		if cfg := r.GetConfiguration(); cfg != nil {
			if cfg.GetReturnImmediately() {
				flags = append(flags, "--async")
			}
			if cfg.HistoryLength != nil {
				flags = append(flags, "--history", fmt.Sprint(cfg.GetHistoryLength()))
			}
			for _, mode := range cfg.GetAcceptedOutputModes() {
				flags = append(flags, "--accept", mode)
			}
		}
	case *a2av1.GetTaskRequest:
		args = []string{"task", "get", r.GetId()}
		if r.HistoryLength != nil {
			flags = append(flags, "--history", fmt.Sprint(r.GetHistoryLength()))
		}
	case *a2av1.ListTasksRequest:
		args = []string{"task", "list"}
		if r.GetContextId() != "" {
			flags = append(flags, "--context-id", r.GetContextId())
		}
		if r.GetStatus() != a2av1.TaskState_TASK_STATE_UNSPECIFIED {
			flags = append(flags, "--status", r.GetStatus().Short())
		}
		if r.PageSize != nil {
			flags = append(flags, "--page-size", fmt.Sprint(r.GetPageSize()))
		}
		if r.GetPageToken() != "" {
			flags = append(flags, "--page-token", r.GetPageToken())
		}
		if r.GetStatusTimestampAfter() != nil {
			flags = append(flags, "--since", r.GetStatusTimestampAfter().AsTime().Format("2006-01-02T15:04:05Z07:00"))
		}
	case *a2av1.CancelTaskRequest:
		args = []string{"task", "cancel", r.GetId()}
	case *a2av1.SubscribeToTaskRequest:
		args = []string{"task", "subscribe", r.GetId()}
		flags = append(flags, "--stream")
	case *a2av1.TaskPushNotificationConfig:
		args = []string{"task", "push-config", "create", r.GetTaskId(), r.GetUrl()}
		if r.GetId() != "" {
			flags = append(flags, "--id", r.GetId())
		}
		if r.GetToken() != "" {
			flags = append(flags, "--token", masked)
		}
	case *a2av1.GetTaskPushNotificationConfigRequest:
		args = []string{"task", "push-config", "get", r.GetTaskId(), r.GetId()}
	case *a2av1.ListTaskPushNotificationConfigsRequest:
		args = []string{"task", "push-config", "list", r.GetTaskId()}
	case *a2av1.DeleteTaskPushNotificationConfigRequest:
		args = []string{"task", "push-config", "delete", r.GetTaskId(), r.GetId()}
	case *a2av1.GetExtendedAgentCardRequest:
		args = []string{"card", "get"}
		flags = append(flags, "--extended")
	default:
		return ""
	}
	return quoteArgs(append(append([]string{"a2a"}, args...), flags...))
}

// quoteArgs joins args for a POSIX shell, quoting what needs it.
func quoteArgs(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@+,%") == "" {
			out[i] = a
		} else {
			out[i] = shellQuote(a)
		}
	}
	return strings.Join(out, " ")
}
