package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/agentcard"
)

// chat is the interactive session (SPEC.md §8.1, §11.2): each line typed
// is a message; the context the agent assigned is carried to the next
// turn, and while a task waits for input (or authentication) the next line
// goes to that task. On a terminal it prompts on stderr; when stdin or
// stdout is not a terminal it prompts nothing and reads lines until the end
// of its input, so a pipe never blocks on a prompt. The output is the same
// labeled text as send's (or JSON Lines, one answer per line, with -o json).

func (a *app) chatCommand() *cobra.Command {
	var contextID string
	cmd := &cobra.Command{
		Use:   "chat",
		Short: "Talk to an agent turn by turn",
		Long: `chat sends each line you type as a message and prints the answer. It keeps
the conversation's context between turns, and when a task asks for input
the next line answers that task. An empty line or Ctrl-D ends it. Give
--context-id to continue an earlier conversation.

On a terminal it prompts; with input or output redirected it reads lines
from stdin without prompting, so scripts can pipe turns in.`,
		Example: `  a2a chat -a http://localhost:8080
  printf 'input\nParis\n' | a2a chat -a http://localhost:8080`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ref, _, err := a.agentArgs(nil)
			if err != nil {
				return err
			}
			return a.withClient(cmd.Context(), ref, true, func(ctx context.Context, c *agentcard.Client) error {
				return a.chat(ctx, c, contextID)
			})
		},
	}
	cmd.Flags().StringVar(&contextID, "context-id", "", "continue the conversation of the context `ID`")
	return cmd
}

func (a *app) chat(ctx context.Context, c *agentcard.Client, contextID string) error {
	interactive := a.env.terminal && a.env.stdinTerminal
	in := bufio.NewScanner(a.env.stdin)
	in.Buffer(make([]byte, 64<<10), 1<<20)
	var taskID string
	for {
		if interactive {
			fmt.Fprint(a.env.stderr, chatPrompt(taskID))
		}
		if !in.Scan() {
			return in.Err()
		}
		line := strings.TrimSpace(in.Text())
		if line == "" {
			if interactive {
				return nil
			}
			continue
		}
		resp, err := a.chatTurn(ctx, c, line, contextID, taskID)
		if err != nil {
			return err
		}
		if id := resp.ContextID(); id != "" {
			contextID = id
		}
		taskID = taskAwaitingInput(resp)
	}
}

// chatPrompt is "you> ", naming the task a reply continues.
func chatPrompt(taskID string) string {
	if taskID != "" {
		return "you (task " + taskID + ")> "
	}
	return "you> "
}

// chatTurn sends one line in the context (and the task, when it waits for
// input), waits for the task it starts to finish, and prints the answer.
func (a *app) chatTurn(ctx context.Context, c *agentcard.Client, line, contextID, taskID string) (*a2av1.SendMessageResponse, error) {
	msg := a2av1.NewUserMessage(a2av1.NewTextPart(line))
	msg.ContextId, msg.TaskId = contextID, taskID
	resp, err := c.SendMessage(ctx, a2av1.NewSendMessageRequest(msg))
	if err != nil {
		return nil, callError(err)
	}
	if t := resp.GetTask(); t != nil && !finished(t.GetStatus().GetState()) {
		task, err := a.waitForTask(ctx, c, t.GetId(), nil)
		if err != nil {
			return nil, err
		}
		resp = &a2av1.SendMessageResponse{Payload: &a2av1.SendMessageResponse_Task{Task: task}}
	}
	if err := a.emit(a.env.stdout, resp, func(w io.Writer) { printSendResponse(w, resp, false) }); err != nil {
		return nil, err
	}
	if a.output == "text" {
		fmt.Fprintln(a.env.stdout)
	}
	return resp, nil
}

// taskAwaitingInput is the answer's task when it waits for the user's input
// or credentials, the next line then continuing it; "" otherwise.
func taskAwaitingInput(resp *a2av1.SendMessageResponse) string {
	switch resp.State() {
	case a2av1.TaskState_TASK_STATE_INPUT_REQUIRED, a2av1.TaskState_TASK_STATE_AUTH_REQUIRED:
		return resp.TaskID()
	}
	return ""
}
