package gofile

import (
	"slices"
	"testing"
)

func TestGroupImports(t *testing.T) {
	in := "package p\n\nimport (\n\t\"context\"\n\ta \"example.com/a\"\n\t\"net/http\"\n\t\"google.golang.org/grpc\"\n)\n\nvar x = 1\n"
	want := "package p\n\nimport (\n\t\"context\"\n\t\"net/http\"\n\n\ta \"example.com/a\"\n\t\"google.golang.org/grpc\"\n)\n\nvar x = 1\n"
	if got := string(GroupImports([]byte(in))); got != want {
		t.Errorf("GroupImports:\n%s\nwant:\n%s", got, want)
	}
	for _, same := range []string{
		"package p\n\nimport \"context\"\n",
		"package p\n\nimport (\n\t\"context\"\n\t\"net/http\"\n)\n",
		"package p\n\nimport (\n\t\"example.com/a\"\n)\n",
	} {
		if got := string(GroupImports([]byte(same))); got != same {
			t.Errorf("GroupImports changed %q to %q", same, got)
		}
	}
}

func TestWrap(t *testing.T) {
	got := Wrap("one two three four\n\nfive → six", 9)
	want := []string{"one two", "three", "four", "", "five →", "six"}
	if !slices.Equal(got, want) {
		t.Errorf("Wrap = %q, want %q", got, want)
	}
	if got := Wrap("averyveryverylongword x", 5); !slices.Equal(got, []string{"averyveryverylongword", "x"}) {
		t.Errorf("Wrap keeps long words whole: got %q", got)
	}
}
