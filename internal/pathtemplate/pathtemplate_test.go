package pathtemplate

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in        string
		canonical string
		vars      []string // "name[start:end]"
		verb      string
	}{
		{"/message:send", "/message:send", nil, "send"},
		{"/tasks", "/tasks", nil, ""},
		{"/tasks/{id}", "/tasks/{id=*}", []string{"id[1:2]"}, ""},
		{"/tasks/{id=*}:cancel", "/tasks/{id=*}:cancel", []string{"id[1:2]"}, "cancel"},
		{"/{tenant}/tasks/{id=*}:subscribe", "/{tenant=*}/tasks/{id=*}:subscribe", []string{"tenant[0:1]", "id[2:3]"}, "subscribe"},
		{"/tasks/{task_id=*}/pushNotificationConfigs/{id=*}", "/tasks/{task_id=*}/pushNotificationConfigs/{id=*}", []string{"task_id[1:2]", "id[3:4]"}, ""},
		{"/v1/{name=projects/*/notes/*}:get", "/v1/{name=projects/*/notes/*}:get", []string{"name[1:5]"}, "get"},
		{"/v1/{a.b.c}", "/v1/{a.b.c=*}", []string{"a.b.c[1:2]"}, ""},
		{"/files/{path=**}", "/files/{path=**}", []string{"path[1:2]"}, ""},
		{"/x/*/y/**", "/x/*/y/**", nil, ""},
		{"/a%2Fb/c-d.e_f~g", "/a%2Fb/c-d.e_f~g", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Parse(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if s := got.String(); s != tt.canonical {
				t.Errorf("String() = %q, want %q", s, tt.canonical)
			}
			var vars []string
			for _, v := range got.Variables {
				vars = append(vars, v.Name()+"["+itoa(v.Start)+":"+itoa(v.End)+"]")
			}
			if diff := cmp.Diff(tt.vars, vars); diff != "" {
				t.Errorf("variables (-want +got):\n%s", diff)
			}
			if got.Verb != tt.verb {
				t.Errorf("Verb = %q, want %q", got.Verb, tt.verb)
			}
		})
	}
}

func itoa(i int) string { return string(rune('0' + i)) }

func TestParseErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", `path template "": empty template; a template starts with "/" (at offset 0)`},
		{"tasks", `path template "tasks": must start with "/" (at offset 0)`},
		{"/", `path template "/": empty path segment (at offset 1)`},
		{"/tasks/", `path template "/tasks/": empty path segment (at offset 7)`},
		{"//tasks", `path template "//tasks": empty path segment (at offset 1)`},
		{"/tasks/{id", `path template "/tasks/{id": unbalanced "{" (at offset 7)`},
		{"/tasks/{id=*", `path template "/tasks/{id=*": unbalanced "{" (at offset 7)`},
		{"/tasks/id}", `path template "/tasks/id}": unbalanced "}" (at offset 9)`},
		{"/tasks/{}", `path template "/tasks/{}": expected a field name, found '}' (at offset 8)`},
		{"/tasks/{1d}", `path template "/tasks/{1d}": expected a field name, found '1' (at offset 8)`},
		{"/tasks/{id=}", `path template "/tasks/{id=}": empty path segment (at offset 11)`},
		{"/tasks/{a={b}}", `path template "/tasks/{a={b}}": variables cannot be nested (at offset 10)`},
		{"/tasks/{id}/{id}", `path template "/tasks/{id}/{id}": variable "id" appears twice (at offset 12)`},
		{"/tasks/{id=*:x}", `path template "/tasks/{id=*:x}": a verb cannot appear inside a variable (at offset 12)`},
		{"/tasks/{id-x}", `path template "/tasks/{id-x}": unexpected '-' in variable; want "=" or "}" (at offset 10)`},
		{"/tasks:", `path template "/tasks:": empty verb after ":" (at offset 7)`},
		{"/tasks:a/b", `path template "/tasks:a/b": the verb must be the last part of the path (at offset 8)`},
		{"/tasks/**/x", `path template "/tasks/**/x": "**" must be the last segment of the path (at offset 0)`},
		{"/tasks/***", `path template "/tasks/***": unexpected '*' after "**" (at offset 9)`},
		{"/tasks/a*", `path template "/tasks/a*": unexpected '*' after "a" (at offset 8)`},
		{"/tasks/a b", `path template "/tasks/a b": unexpected ' ' after "a" (at offset 8)`},
		{"/tasks/%zz", `path template "/tasks/%zz": unexpected '%' in path segment (at offset 7)`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := Parse(tt.in)
			if err == nil {
				t.Fatalf("no error, want %s", tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("error:\n got: %s\nwant: %s", err, tt.want)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"/tasks/{id=*}:cancel", "/{tenant}/message:send", "/v1/{name=projects/*/x/**}", "/a/{b.c}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tmpl, err := Parse(s)
		if err != nil {
			return
		}
		// The canonical form must parse to the same template.
		again, err := Parse(tmpl.String())
		if err != nil {
			t.Fatalf("canonical form %q of %q does not parse: %v", tmpl.String(), s, err)
		}
		if diff := cmp.Diff(tmpl, again); diff != "" {
			t.Fatalf("canonical form %q of %q parses differently (-first +again):\n%s", tmpl.String(), s, diff)
		}
	})
}
