package runtime

import "testing"

// TestErrorStringNamesEachViolationOnce: Error() appends the field
// violations the message does not already say (issue 26: typed skill data
// listed "data.city: required" twice).
func TestErrorStringNamesEachViolationOnce(t *testing.T) {
	for _, c := range []struct {
		err  *Error
		want string
	}{
		{InvalidParams("bad request", FieldViolation{Field: "a", Description: "required"}, FieldViolation{Field: "b"}),
			"InvalidParams: bad request; a: required; b"},
		{InvalidParams("skill: data.city: required; data.days: too big",
			FieldViolation{Field: "data.city", Description: "required"}, FieldViolation{Field: "data.days", Description: "too big"}),
			"InvalidParams: skill: data.city: required; data.days: too big"},
		{InvalidParams("message.role: must be ROLE_USER (and 1 more)",
			FieldViolation{Field: "message.role", Description: "must be ROLE_USER"}, FieldViolation{Field: "message.parts[0]", Description: "empty"}),
			"InvalidParams: message.role: must be ROLE_USER (and 1 more); message.parts[0]: empty"},
	} {
		if got := c.err.Error(); got != c.want {
			t.Errorf("Error()\n got %s\nwant %s", got, c.want)
		}
	}
}
