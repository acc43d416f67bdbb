package main

import (
	"context"
	"fmt"
	"io"
	"mime"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/agentcard"
)

// sendFlags are the flags of send.
type sendFlags struct {
	files, fileURLs, data []string
	mediaType             string
	stream                bool
	task, context         string
	returnImmediately     bool
	history               int
	pushURL, pushToken    string
	acceptedOutputModes   []string
}

func (a *app) sendCommand() *cobra.Command {
	var s sendFlags
	cmd := &cobra.Command{
		Use:   "send [URL] [TEXT…]",
		Short: "Send a message to an agent and show the answer",
		Long: `send sends one user message: the TEXT arguments (joined by spaces) as a text
part, plus a part per --file (the file's bytes inline), --file-url (a link
the agent fetches) and --data (JSON, inline or @file). It shows the agent's
direct reply or the task it created.

Without --stream the call waits until the task is finished or interrupted
(INPUT_REQUIRED, AUTH_REQUIRED), unless --return-immediately is given. With
--stream the events are printed as they arrive: status changes on their own
lines, artifact chunks appended in place.

Continue a task with --task (and --context); the agent adds the message to
it, for example to answer INPUT_REQUIRED. The exit code is 5 when the task
ends FAILED, REJECTED or CANCELED.`,
		Example: `  a2a send http://localhost:8080 hello
  a2a send --stream http://localhost:8080 stream 5
  a2a send http://localhost:8080 --file report.pdf "summarise this"
  a2a send http://localhost:8080 --data '{"city": "Paris"}' --data @extra.json
  a2a send http://localhost:8080 --task TASK --context CTX "here is more input"
  a2a send http://localhost:8080 --return-immediately --push-url http://127.0.0.1:9000/hook slow 5000
  a2a send http://localhost:8080 hello -o json | jq .task.id`,
		RunE: func(cmd *cobra.Command, args []string) error {
			url, rest, err := a.agentArgs(args)
			if err != nil {
				return err
			}
			msg, err := s.message(strings.Join(rest, " "))
			if err != nil {
				return err
			}
			if s.history < 0 {
				return usagef("--history %d: must not be negative", s.history)
			}
			req := a2av1.NewSendMessageRequest(msg)
			req.Configuration = s.configuration(cmd.Flags().Changed("history"))
			return a.withClient(cmd.Context(), url, s.stream, func(ctx context.Context, c *agentcard.Client) error {
				if s.stream {
					id, last, err := a.followStream(c.SendStreamingMessage(ctx, req))
					if err != nil {
						return err
					}
					return endedBadly(id, last)
				}
				resp, err := c.SendMessage(ctx, req)
				if err != nil {
					return callError(err)
				}
				if err := a.emit(a.env.stdout, resp, func(w io.Writer) { printSendResponse(w, resp) }); err != nil {
					return err
				}
				return endedBadly(resp.TaskID(), resp.State())
			})
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&s.files, "file", nil, "attach the file at `PATH` inline (repeatable)")
	f.StringArrayVar(&s.fileURLs, "file-url", nil, "attach a file by `URL`, which the agent fetches (repeatable)")
	f.StringArrayVar(&s.data, "data", nil, "attach structured data: `JSON` inline or @FILE (repeatable)")
	f.StringVar(&s.mediaType, "media-type", "", "media type of the --file and --file-url parts (default: from the file name)")
	f.BoolVar(&s.stream, "stream", false, "stream the answer (SendStreamingMessage) and print events as they arrive")
	f.StringVar(&s.task, "task", "", "continue the task `ID` (a follow-up message)")
	f.StringVar(&s.context, "context", "", "send the message in the context `ID`")
	f.BoolVar(&s.returnImmediately, "return-immediately", false, "return as soon as the task exists instead of waiting for it to finish")
	f.IntVar(&s.history, "history", 0, "include at most `N` history messages in the returned task")
	f.StringVar(&s.pushURL, "push-url", "", "register a webhook `URL` for the task's push notifications (see a2a webhook listen)")
	f.StringVar(&s.pushToken, "push-token", "", "token the agent sends to the --push-url webhook")
	f.StringArrayVar(&s.acceptedOutputModes, "accept", nil, "accepted output media `TYPE` (repeatable)")
	return cmd
}

// message builds the user message of send.
func (s *sendFlags) message(text string) (*a2av1.Message, error) {
	var parts []*a2av1.Part
	if text != "" {
		parts = append(parts, a2av1.NewTextPart(text))
	}
	for _, path := range s.files {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("--file: %w", err)
		}
		parts = append(parts, a2av1.NewFilePart(filepath.Base(path), s.mediaTypeOf(path), data))
	}
	for _, u := range s.fileURLs {
		name := ""
		if i := strings.LastIndexByte(strings.SplitN(u, "?", 2)[0], '/'); i >= 0 {
			name = strings.SplitN(u, "?", 2)[0][i+1:]
		}
		parts = append(parts, a2av1.NewFileURLPart(u, name, s.mediaTypeOf(name)))
	}
	for _, d := range s.data {
		raw := []byte(d)
		if file, ok := strings.CutPrefix(d, "@"); ok {
			var err error
			if raw, err = os.ReadFile(file); err != nil {
				return nil, fmt.Errorf("--data: %w", err)
			}
		}
		p, err := a2av1.NewJSONDataPart(raw)
		if err != nil {
			return nil, usagef("--data %s: %v", truncate(d, 40), err)
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return nil, usagef("nothing to send: give TEXT, --file, --file-url or --data")
	}
	m := a2av1.NewUserMessage(parts...)
	m.TaskId, m.ContextId = s.task, s.context
	return m, nil
}

func (s *sendFlags) mediaTypeOf(name string) string {
	if s.mediaType != "" {
		return s.mediaType
	}
	if t := mime.TypeByExtension(filepath.Ext(name)); t != "" {
		mt, _, err := mime.ParseMediaType(t)
		if err == nil {
			return mt
		}
	}
	return ""
}

// configuration is the request's SendMessageConfiguration, or nil when no
// flag asks for one.
func (s *sendFlags) configuration(historySet bool) *a2av1.SendMessageConfiguration {
	c := &a2av1.SendMessageConfiguration{ReturnImmediately: s.returnImmediately, AcceptedOutputModes: s.acceptedOutputModes}
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
