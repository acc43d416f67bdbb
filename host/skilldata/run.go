package skilldata

import (
	"context"
	"errors"
	"fmt"
	"strings"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
)

// Func is a typed skill: what host.Skill.Run does, with the message's input
// already decoded.
type Func[T any] func(ctx context.Context, req *server.Request, in T, events *server.Events) error

// TextFunc reads a skill's input from the text of a message that has no
// data part. Its result is checked against the input schema like data is;
// an error refuses the message (a *runtime.Error as it is, any other as
// InvalidParams with its text).
type TextFunc[T any] func(ctx context.Context, text string) (T, error)

// Run returns the host.Skill.Run of a typed skill. The input of a message
// is its data part, decoded by in (Schema.Decode); with no data part, its
// text read by fromText, when the skill also reads text (fromText is nil
// otherwise). A message with more than one data part, or with neither data
// nor a text fromText can read, is refused with InvalidParams before the
// skill runs, so no task is created.
//
// The media types of the parts are checked before, by package host,
// against the skill's inputModes.
func Run[T any](in *Schema[T], run Func[T], fromText TextFunc[T]) func(ctx context.Context, req *server.Request, events *server.Events) error {
	return func(ctx context.Context, req *server.Request, events *server.Events) error {
		v, err := Input(ctx, in, req.Message, fromText)
		if err != nil {
			return err
		}
		return run(ctx, req, v, events)
	}
}

// Input reads the input of a message as Run does.
func Input[T any](ctx context.Context, in *Schema[T], msg *a2av1.Message, fromText TextFunc[T]) (T, error) {
	var zero T
	var data []int
	hasText := false
	for i, p := range msg.GetParts() {
		switch p.GetContent().(type) {
		case *a2av1.Part_Data:
			data = append(data, i)
		case *a2av1.Part_Text:
			hasText = true
		}
	}
	switch {
	case len(data) == 1:
		v, err := in.Decode(msg.GetParts()[data[0]].GetData())
		if err != nil {
			return zero, err
		}
		return v, nil
	case len(data) > 1:
		where := make([]string, len(data))
		for i, j := range data {
			where[i] = fmt.Sprintf("message.parts[%d]", j)
		}
		return zero, runtime.InvalidParams(fmt.Sprintf("skill %q takes one data part, got %d (%s)", in.skill, len(data), strings.Join(where, ", ")),
			runtime.FieldViolation{Field: "message.parts", Description: "more than one data part"})
	case hasText && fromText != nil:
		v, err := fromText(ctx, msg.Text())
		if err != nil {
			var re *runtime.Error
			if errors.As(err, &re) {
				return zero, re
			}
			return zero, runtime.InvalidParams(fmt.Sprintf("skill %q: %v", in.skill, err))
		}
		// What fromText made is checked like data: it is what the skill
		// relies on.
		_, vs, err := in.encode(v)
		if err != nil {
			return zero, err
		}
		if len(vs) > 0 {
			return zero, in.invalid("the "+in.direction+" read from the text", vs)
		}
		return v, nil
	}
	how := "a data part (" + MediaType + ")"
	if fromText != nil {
		how += " or text"
	}
	return zero, runtime.InvalidParams(fmt.Sprintf("skill %q takes %s holding its %s", in.skill, how, in.direction),
		runtime.FieldViolation{Field: "message.parts", Description: "no data part"})
}
