package llm

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/a2agen/a2agen/internal/dataschema"
)

// checkArguments reads a tool call's arguments and checks them against
// the tool's Parameters with the validator of typed skill input
// (internal/dataschema), before the tool runs. The error says what is
// wrong so that the model, which reads it as the tool's result, can call
// again with arguments that match. A tool without Parameters, or whose
// Parameters are outside the subset of JSON Schema the validator knows (a
// remote card's schema may be), gets its arguments unchecked, text that is
// not JSON becoming {}.
func checkArguments(tool Tool, arguments string) (json.RawMessage, error) {
	schema := argumentSchema(tool.Parameters)
	args := json.RawMessage(arguments)
	if strings.TrimSpace(arguments) == "" {
		args = json.RawMessage("{}")
	}
	if schema == nil {
		if !json.Valid(args) {
			args = json.RawMessage("{}")
		}
		return args, nil
	}
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return nil, fmt.Errorf("the arguments of %s are not JSON (%v); call it again with a JSON object that matches its parameters", tool.Name, err)
	}
	if vs := schema.Validate(v, "arguments"); len(vs) > 0 {
		msgs := make([]string, len(vs))
		for i, v := range vs {
			msgs[i] = v.String()
		}
		return nil, fmt.Errorf("the arguments of %s do not match its parameters: %s; call it again with arguments that match", tool.Name, strings.Join(msgs, "; "))
	}
	return args, nil
}

// argumentSchema is params read by the validator; nil when there are none
// or they are outside its subset.
func argumentSchema(params map[string]any) *dataschema.Schema {
	if params == nil {
		return nil
	}
	s, problems := dataschema.FromValue(params)
	if len(problems) > 0 {
		return nil
	}
	return s
}
