package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"google.golang.org/protobuf/types/known/structpb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/agentcard"
)

// skillMetadataKey is the message metadata key that names the skill in
// agents a2a-scaffold makes (scaffold.SkillMetadataKey, which route.go
// reads; TestSkillKeyIsTheScaffolds keeps the two equal without linking the
// generator into the client).
const skillMetadataKey = "a2a-scaffold/skill"

func (a *app) sendCommand() *cobra.Command {
	var s sendFlags
	cmd := &cobra.Command{
		Use:   "send [TEXT…]",
		Short: "Send a message to start or continue an interaction",
		Long: `send sends one user message and shows the agent's answer: a direct reply, or
the task it created. The message's parts are TEXT (the arguments, joined by
spaces) and, in the order given, each --text, --file (a path: its bytes
inline; a URL: a link the agent fetches) and --data (a JSON file, - for
stdin, or inline JSON); --media-type sets the media type of the part flag
just before it.

send waits until the task is finished or interrupted (INPUT_REQUIRED,
AUTH_REQUIRED), polling every --poll-interval when the agent answers
earlier; --async returns the task's identifiers at once instead. --stream
prints the events as they arrive (JSON Lines with -o json) and falls back
to polling if the stream breaks.

Continue a task with --task-id (for example to answer INPUT_REQUIRED), or
start a new task in a context with --context-id. --skill ID names the skill
of an agent built with a2a-scaffold (message metadata "` + skillMetadataKey + `");
--metadata attaches any JSON object to the message.

The exit code is 0 whenever the message was sent and the answer shown, also
when the task ended FAILED or REJECTED or waits for input: the state is in
the output, and a warning on stderr names it.`,
		Example: `  a2a send -a http://localhost:8080 hello
  a2a send -a http://localhost:8080 --stream "stream 5"
  a2a send -a http://localhost:8080 --file report.pdf --media-type application/pdf "summarise this"
  a2a send -a http://localhost:8080 --skill plan-trip --data '{"city": "Lisbon"}'
  echo '{"city": "Oslo"}' | a2a send -a http://localhost:8080 --data -
  a2a send -a http://localhost:8080 --task-id TASK "here is more input"
  a2a send -a http://localhost:8080 --async "slow 5000" -o json | jq -r .task.id
  a2a send -a http://localhost:8080 --metadata '{"tenant": "acme"}' hello`,
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, rest, err := a.agentArgs(args)
			if err != nil {
				return err
			}
			msg, err := s.message(strings.Join(rest, " "), a.env.stdin)
			if err != nil {
				return err
			}
			if err := s.check(); err != nil {
				return err
			}
			req := a2av1.NewSendMessageRequest(msg)
			req.Configuration = s.configuration(cmd.Flags().Changed("history"))
			return a.withClient(cmd.Context(), ref, !s.async, func(ctx context.Context, c *agentcard.Client) error {
				return a.send(ctx, c, req, s)
			})
		},
	}
	f := cmd.Flags()
	f.Var(&partFlag{&s.parts, "text"}, "text", "add a text part (repeatable, in order with --file and --data)")
	f.Var(&partFlag{&s.parts, "file"}, "file", "add a file part: a `PATH` (bytes inline) or a URL the agent fetches (repeatable)")
	f.Var(&partFlag{&s.parts, "data"}, "data", "add a data part: a JSON `FILE`, - for stdin, or inline JSON (repeatable)")
	f.Var(&mediaTypeFlag{&s.parts}, "media-type", "media `TYPE` of the part flag just before it (default: from the file name)")
	f.Var(&partFlag{&s.parts, "file-url"}, "file-url", "deprecated: --file URL")
	_ = f.MarkHidden("file-url")
	f.BoolVar(&s.stream, "stream", false, "follow the answer live (SendStreamingMessage); JSON Lines with -o json")
	f.StringVar(&s.task, "task-id", "", "continue the task `ID` (for example one waiting for input)")
	f.StringVar(&s.context, "context-id", "", "start the task in the context `ID`, with the tasks already in it")
	f.BoolVar(&s.async, "async", false, "return the task's identifiers at once instead of waiting")
	f.BoolVar(&s.async, "return-immediately", false, "the same as --async")
	f.BoolVar(&s.async, "no-wait", false, "the same as --async")
	f.BoolVar(&s.wait, "wait", false, "wait for a terminal or interrupted state (the default; overrides a configured --async)")
	f.IntVar(&s.history, "history", 0, "include at most `N` history messages in the returned task")
	f.StringVar(&s.pushURL, "push-url", "", "register a webhook `URL` for the task's push notifications (see a2a webhook listen)")
	f.StringVar(&s.pushToken, "push-token", "", "token the agent sends to the --push-url webhook")
	f.StringArrayVar(&s.acceptedOutputModes, "accept", nil, "accepted output media `TYPE` (repeatable)")
	f.StringVar(&s.metadata, "metadata", "", "attach a JSON object to the message's metadata, e.g. '{\"k\":\"v\"}'")
	f.StringVar(&s.skill, "skill", "", "the skill `ID` to run, for agents built with a2a-scaffold (message metadata "+skillMetadataKey+")")
	// The names before the specification, hidden.
	f.StringVar(&s.task, "task", "", "deprecated: --task-id")
	f.StringVar(&s.context, "context", "", "deprecated: --context-id")
	_ = f.MarkHidden("task")
	_ = f.MarkHidden("context")
	return cmd
}

// sendFlags are the flags of send.
type sendFlags struct {
	parts               partList
	stream              bool
	task, context       string
	async, wait         bool
	history             int
	pushURL, pushToken  string
	acceptedOutputModes []string
	metadata            string
	skill               string
}

// check refuses flags that contradict each other or are out of range.
func (s sendFlags) check() error {
	if s.history < 0 {
		return usagef("--history %d: must not be negative", s.history)
	}
	if s.async && s.wait {
		return usagef("--async and --wait contradict each other")
	}
	if s.async && s.stream {
		return usagef("--async and --stream contradict each other: --stream follows the task live")
	}
	return nil
}

// send sends the message the way the flags and the agent's card allow:
// streaming when asked for and declared, else waiting for the answer.
func (a *app) send(ctx context.Context, c *agentcard.Client, req *a2av1.SendMessageRequest, s sendFlags) error {
	if s.pushURL != "" && !c.Card.GetCapabilities().GetPushNotifications() {
		return usagef("--push-url: the agent's card does not declare push notifications")
	}
	if s.stream && c.Card.GetCapabilities().GetStreaming() {
		return a.sendStreaming(ctx, c, req, s.history)
	}
	if s.stream {
		fmt.Fprintln(a.env.stderr, "a2a: warning: the agent's card does not declare streaming; waiting for the answer instead")
	}
	return a.sendAndWait(ctx, c, req, s)
}

// sendAndWait sends the message and, unless --async, waits for the task
// to be terminal or interrupted, polling when the agent answered earlier.
func (a *app) sendAndWait(ctx context.Context, c *agentcard.Client, req *a2av1.SendMessageRequest, s sendFlags) error {
	resp, err := c.SendMessage(ctx, req)
	if err != nil {
		return a.sendError(err, req)
	}
	if t := resp.GetTask(); t != nil && !s.async && !finished(t.GetStatus().GetState()) {
		task, err := a.waitForTask(ctx, c, t.GetId(), req.GetConfiguration().HistoryLength)
		if err != nil {
			return err
		}
		resp = &a2av1.SendMessageResponse{Payload: &a2av1.SendMessageResponse_Task{Task: task}}
	}
	if err := a.emit(a.env.stdout, resp, func(w io.Writer) { printSendResponse(w, resp, a.verbose) }); err != nil {
		return err
	}
	if t := resp.GetTask(); t != nil && s.async {
		fmt.Fprintf(a.env.stderr, "a2a: task %s is %s; follow it with: a2a task get --wait %s\n", t.GetId(), t.GetStatus().GetState().Short(), t.GetId())
	}
	return a.noteOutcome(resp.TaskID(), resp.ContextID(), resp.State())
}

// sendStreaming follows SendStreamingMessage; if the stream breaks after
// the task exists, it polls the task to its end instead.
func (a *app) sendStreaming(ctx context.Context, c *agentcard.Client, req *a2av1.SendMessageRequest, history int) error {
	end, err := a.followStream(c.SendStreamingMessage(ctx, req))
	broke := err != nil && streamFailed(err)
	if err == nil && end.taskID != "" && !finished(end.state) {
		// The stream ended before the task did: as broken as an error.
		broke, err = true, fmt.Errorf("the stream ended while the task was %s", end.state.Short())
	}
	if err != nil {
		if !broke || end.taskID == "" {
			return a.sendError(err, req)
		}
		fmt.Fprintf(a.env.stderr, "a2a: warning: the stream broke (%v); polling task %s instead\n", err, end.taskID)
		return a.pollStreamedTask(ctx, c, end.taskID)
	}
	return a.noteOutcome(end.taskID, end.contextID, end.state)
}

// pollStreamedTask polls the task of a broken stream to its end and prints
// it as the stream's last event.
func (a *app) pollStreamedTask(ctx context.Context, c *agentcard.Client, id string) error {
	task, err := a.waitForTask(ctx, c, id, nil)
	if err != nil {
		return err
	}
	ev := &a2av1.StreamResponse{Payload: &a2av1.StreamResponse_Task{Task: task}}
	if err := a.emit(a.env.stdout, ev, func(w io.Writer) { printTask(w, task, false) }); err != nil {
		return err
	}
	return a.noteOutcome(task.GetId(), task.GetContextId(), task.GetStatus().GetState())
}

// sendError adds to an error of a message sent into a task that no new
// task was started (SPEC.md §8.1).
func (a *app) sendError(err error, req *a2av1.SendMessageRequest) error {
	err = callError(err)
	if id := req.GetMessage().GetTaskId(); id != "" {
		return fmt.Errorf("the agent refused the message for task %s; no new task was started (re-run with --debug for the exchange): %w", id, err)
	}
	return err
}

// message builds the user message of send.
func (s *sendFlags) message(text string, stdin io.Reader) (*a2av1.Message, error) {
	parts, err := s.parts.build(text, stdin)
	if err != nil {
		return nil, err
	}
	if len(parts) == 0 {
		return nil, usagef("nothing to send: give TEXT, --text, --file or --data")
	}
	m := a2av1.NewUserMessage(parts...)
	m.TaskId, m.ContextId = s.task, s.context
	md := map[string]any{}
	if s.metadata != "" {
		if err := json.Unmarshal([]byte(s.metadata), &md); err != nil || md == nil {
			return nil, usagef("--metadata %s: want a JSON object, e.g. '{\"k\":\"v\"}'", truncate(s.metadata, 40))
		}
	}
	if s.skill != "" {
		md[skillMetadataKey] = s.skill
	}
	if len(md) > 0 {
		st, err := structpb.NewStruct(md)
		if err != nil {
			return nil, usagef("--metadata: %v", err)
		}
		m.Metadata = st
	}
	return m, nil
}

// configuration is the request's SendMessageConfiguration, or nil when no
// flag asks for one.
func (s *sendFlags) configuration(historySet bool) *a2av1.SendMessageConfiguration {
	c := &a2av1.SendMessageConfiguration{ReturnImmediately: s.async, AcceptedOutputModes: s.acceptedOutputModes}
	if historySet {
		n := int32(s.history)
		c.HistoryLength = &n
	}
	if s.pushURL != "" {
		c.TaskPushNotificationConfig = &a2av1.TaskPushNotificationConfig{Url: s.pushURL, Token: s.pushToken}
	}
	if !c.ReturnImmediately && c.HistoryLength == nil && c.TaskPushNotificationConfig == nil && len(c.AcceptedOutputModes) == 0 {
		return nil
	}
	return c
}
