package redact

import "testing"

func TestUserinfo(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:secret@h/db":        "postgres://u:xxxxx@h/db",
		"postgres://u:se:c@r@et@h/db?x=1": "postgres://u:xxxxx@h/db?x=1",
		"postgres://u@h/db":               "postgres://u@h/db",
		"postgres://h/db":                 "postgres://h/db",
		"u:pw@h":                          "u:xxxxx@h",
	} {
		if got := Userinfo(in); got != want {
			t.Errorf("Userinfo(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestQueryPasswords(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://h/db":                                 "postgres://h/db",
		"postgres://h/db?sslmode=disable":                 "postgres://h/db?sslmode=disable",
		"postgres://h/db?password=a&sslPassword=b&user=c": "postgres://h/db?password=xxxxx&sslPassword=xxxxx&user=c",
		"postgres://h/db?pass%77ord=a&password":           "postgres://h/db?pass%77ord=xxxxx&password",
	} {
		if got := QueryPasswords(in); got != want {
			t.Errorf("QueryPasswords(%q) = %q, want %q", in, got, want)
		}
	}
}
