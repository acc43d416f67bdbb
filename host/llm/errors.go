package llm

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"

	"github.com/openai/openai-go/v3"
)

// describe says what went wrong with a model request in words an operator
// can act on; it becomes the FAILED status's message. Retries are behind
// it: the client tried 429, 5xx and connection failures MaxRetries times.
func describe(err error, p *Provider) string {
	var apiErr *openai.Error
	var netErr net.Error
	switch {
	case errors.As(err, &apiErr):
		detail := apiErr.Message
		if detail == "" {
			detail = httpStatusText(apiErr.StatusCode)
		}
		switch code := apiErr.StatusCode; {
		case code == 401 || code == 403:
			return fmt.Sprintf("the model endpoint %s refused the API key (HTTP %d: %s); set $%s (or -llm-api-key-env) to a valid key", p.BaseURL, code, detail, p.apiKeyEnv())
		case code == 404:
			return fmt.Sprintf("the model endpoint %s does not know model %q or the chat-completions route (HTTP 404: %s); check -llm-model and -llm-base-url", p.BaseURL, p.Model, detail)
		case code == 429:
			return fmt.Sprintf("the model endpoint %s is rate limiting this agent (HTTP 429: %s) and still was after %d retries; try again later or raise -llm-max-retries", p.BaseURL, detail, p.maxRetries())
		case code >= 500:
			return fmt.Sprintf("the model endpoint %s failed (HTTP %d: %s), also after %d retries", p.BaseURL, code, detail, p.maxRetries())
		default:
			return fmt.Sprintf("the model endpoint %s refused the request (HTTP %d: %s)", p.BaseURL, code, detail)
		}
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &netErr) && netErr.Timeout():
		return fmt.Sprintf("the model endpoint %s did not answer within %s (-llm-timeout), also after %d retries", p.BaseURL, p.timeout(), p.maxRetries())
	case errors.As(err, &netErr):
		return fmt.Sprintf("cannot reach the model endpoint %s: %v", p.BaseURL, err)
	}
	return fmt.Sprintf("the model request failed: %v", err)
}

func httpStatusText(code int) string {
	if t := http.StatusText(code); t != "" {
		return t
	}
	return "no message"
}
