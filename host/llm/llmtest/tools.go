package llmtest

import "strings"

// CallEveryTool is the message that makes a CallTools reply call tools.
const CallEveryTool = "Call every tool you have."

// ToolAnswered is the line a CallTools reply answers for each tool result:
// ToolAnswered(name, result) is in the answer when the tool called name
// gave result.
func ToolAnswered(name, result string) string {
	return "tool " + name + " answered: " + result
}

// CallTools is a Server.Reply standing in for a model that uses its tools.
// To a request whose last message is the user's CallEveryTool it answers a
// call of each of calls the request offers as a tool (in the order of
// calls); to a request ending with those calls' results, one line per
// result, ToolAnswered(name, result), so that a test reads from the answer
// which tools ran and what they said; any other request goes to next. It
// keeps no state, so tests running at once may share it.
func CallTools(calls []Call, next func(Request) Step) func(Request) Step {
	return func(r Request) Step {
		if len(r.Messages) == 0 {
			return next(r)
		}
		last := r.Messages[len(r.Messages)-1]
		switch {
		case last.Role == "user" && last.Text() == CallEveryTool:
			offered := map[string]bool{}
			for _, name := range r.ToolNames() {
				offered[name] = true
			}
			var step Step
			for _, c := range calls {
				if offered[c.Name] {
					step.Calls = append(step.Calls, c)
				}
			}
			if len(step.Calls) > 0 {
				return step
			}
		case last.Role == "tool":
			if lines := toolResults(r.Messages); lines != nil {
				return Step{Tokens: []string{strings.Join(lines, "\n")}}
			}
		}
		return next(r)
	}
}

// toolResults are the ToolAnswered lines of the tool messages that end
// messages, when the user's message before them is CallEveryTool; nil
// otherwise.
func toolResults(messages []Message) []string {
	names := map[string]string{}
	end := len(messages)
	for end > 0 && messages[end-1].Role == "tool" {
		end--
	}
	asked := false
	for _, m := range messages[:end] {
		for _, c := range m.ToolCalls {
			names[c.ID] = c.Function.Name
		}
		if m.Role == "user" {
			asked = m.Text() == CallEveryTool
		}
	}
	if !asked {
		return nil
	}
	var lines []string
	for _, m := range messages[end:] {
		lines = append(lines, ToolAnswered(names[m.ToolCallID], m.Text()))
	}
	return lines
}
