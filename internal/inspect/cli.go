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
	l := &cliLine{}
	l.flag("-a", agentURL)
	if b, err := runtime.ParseBinding(iface.GetProtocolBinding()); err == nil && b.Known() {
		l.flag("--transport", b.Option())
	}
	l.flagIf("--a2a-version", in.Version)
	for _, e := range in.Extensions {
		l.flag("--extension", e)
	}
	if !l.request(in.Operation, req) {
		return ""
	}
	return quoteArgs(append(append([]string{"a2a"}, l.args...), l.flags...))
}

// cliLine is an a2a command line being built: the command and its
// arguments, then the flags.
type cliLine struct {
	args, flags []string
}

// flag adds a flag and its values.
func (l *cliLine) flag(name string, values ...string) {
	l.flags = append(append(l.flags, name), values...)
}

// flagIf adds a flag with its value when the value is not "".
func (l *cliLine) flagIf(name, value string) {
	if value != "" {
		l.flag(name, value)
	}
}

// history adds --history N when n is set.
func (l *cliLine) history(n *int32) {
	if n != nil {
		l.flag("--history", fmt.Sprint(*n))
	}
}

// request sets the command and flags of the call; false for a call the
// command line has no command for.
func (l *cliLine) request(operation string, req proto.Message) bool {
	switch r := req.(type) {
	case *a2av1.SendMessageRequest:
		l.send(operation == "SendStreamingMessage", r)
	case *a2av1.GetTaskRequest:
		l.args = []string{"task", "get", r.GetId()}
		l.history(r.HistoryLength)
	case *a2av1.ListTasksRequest:
		l.listTasks(r)
	case *a2av1.CancelTaskRequest:
		l.args = []string{"task", "cancel", r.GetId()}
	case *a2av1.SubscribeToTaskRequest:
		l.args = []string{"task", "subscribe", r.GetId()}
		l.flag("--stream")
	case *a2av1.TaskPushNotificationConfig:
		l.args = []string{"task", "push-config", "create", r.GetTaskId(), r.GetUrl()}
		l.flagIf("--id", r.GetId())
		if r.GetToken() != "" {
			l.flag("--token", masked)
		}
	case *a2av1.GetTaskPushNotificationConfigRequest:
		l.args = []string{"task", "push-config", "get", r.GetTaskId(), r.GetId()}
	case *a2av1.ListTaskPushNotificationConfigsRequest:
		l.args = []string{"task", "push-config", "list", r.GetTaskId()}
	case *a2av1.DeleteTaskPushNotificationConfigRequest:
		l.args = []string{"task", "push-config", "delete", r.GetTaskId(), r.GetId()}
	case *a2av1.GetExtendedAgentCardRequest:
		l.args = []string{"card", "get"}
		l.flag("--extended")
	default:
		return false
	}
	return true
}

// send is a2a send: the message's task, context, metadata and parts, then
// the configuration.
func (l *cliLine) send(streaming bool, r *a2av1.SendMessageRequest) {
	l.args = []string{"send"}
	if streaming {
		l.flag("--stream")
	}
	m := r.GetMessage()
	l.flagIf("--task-id", m.GetTaskId())
	l.flagIf("--context-id", m.GetContextId())
	if md := m.GetMetadata(); md != nil {
		if skill, ok := md.GetFields()["a2a-scaffold/skill"]; ok && len(md.GetFields()) == 1 {
			l.flag("--skill", skill.GetStringValue())
		} else if b, err := runtime.MarshalJSON(md); err == nil {
			l.flag("--metadata", string(b))
		}
	}
	for _, p := range m.GetParts() {
		l.part(p)
	}
	if cfg := r.GetConfiguration(); cfg != nil {
		if cfg.GetReturnImmediately() {
			l.flag("--async")
		}
		l.history(cfg.HistoryLength)
		for _, mode := range cfg.GetAcceptedOutputModes() {
			l.flag("--accept", mode)
		}
	}
}

// part adds the flag that sends p: --text, --data or --file (a raw part's
// file name standing for its bytes).
func (l *cliLine) part(p *a2av1.Part) {
	switch c := p.GetContent().(type) {
	case *a2av1.Part_Text:
		l.flag("--text", c.Text)
	case *a2av1.Part_Data:
		if b, err := runtime.MarshalJSON(c.Data); err == nil {
			l.flag("--data", string(b))
		}
	case *a2av1.Part_Url:
		l.flag("--file", c.Url)
	case *a2av1.Part_Raw:
		l.flag("--file", orFile(p.GetFilename()))
	}
}

func orFile(name string) string {
	if name == "" {
		return "FILE"
	}
	return name
}

// listTasks is a2a task list with the request's filters.
func (l *cliLine) listTasks(r *a2av1.ListTasksRequest) {
	l.args = []string{"task", "list"}
	l.flagIf("--context-id", r.GetContextId())
	if r.GetStatus() != a2av1.TaskState_TASK_STATE_UNSPECIFIED {
		l.flag("--status", r.GetStatus().Short())
	}
	if r.PageSize != nil {
		l.flag("--page-size", fmt.Sprint(r.GetPageSize()))
	}
	l.flagIf("--page-token", r.GetPageToken())
	if r.GetStatusTimestampAfter() != nil {
		l.flag("--since", r.GetStatusTimestampAfter().AsTime().Format("2006-01-02T15:04:05Z07:00"))
	}
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
