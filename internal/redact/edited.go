package redact

// Edited is an error shown with another message than its cause's (a
// repetition of the connection string or a line break left out), the cause
// kept in the chain for errors.Is and errors.As.
type Edited struct {
	Msg string
	Err error
}

func (e *Edited) Error() string { return e.Msg }
func (e *Edited) Unwrap() error { return e.Err }
