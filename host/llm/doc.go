// Package llm runs the skills an agent.yaml gives to a language model: an
// OpenAI-compatible chat-completions endpoint (OpenAI, Azure OpenAI, Ollama,
// vLLM, LM Studio, Gemini's OpenAI-compatible endpoint) reached through the
// official openai-go client.
//
// A Provider says where the model is (base URL, model, the environment
// variable holding the API key, timeout, retries); its Flags add
// -llm-base-url, -llm-model, -llm-api-key-env, -llm-timeout and
// -llm-max-retries to host.Main (each also from its A2A_LLM_* variable).
// Provider.Skill turns a Skill (instructions, temperature, max tokens, an
// optional output JSON Schema, tools, hooks) into the Run function of a
// host.Skill. Generated projects hold one Provider and one Skill per `llm:`
// skill of agent.yaml; what they do is here, so fixes land in one place.
//
// What a skill's execution does, turn by turn:
//
//   - the conversation sent to the model is the skill's instructions, then
//     the context's earlier tasks (their messages and artifacts, oldest
//     first) and this task's history, trimmed from the oldest end to the
//     skill's memory budget (MemoryBytes, default DefaultMemoryBytes);
//   - the model's tokens stream into one text artifact, chunk by chunk
//     (append, lastChunk on the last), and the task completes;
//   - a call of the built-in ask_user tool ends the turn INPUT_REQUIRED with
//     the model's question; the answer starts the next turn, which sees the
//     question and the answer in the task's history;
//   - a call of another tool (Tool) runs it and gives the model its result;
//   - cancel cancels the model request;
//   - provider errors fail the task with a message saying what to fix
//     (errors.go); 429 and 5xx answers and timeouts are retried by the
//     client first (MaxRetries, honouring Retry-After);
//   - with an output schema the model is asked for JSON of that schema
//     (response_format json_schema), the answer is validated and sent as a
//     data artifact; invalid output is asked for once more, then the task
//     fails with the validation error.
package llm
