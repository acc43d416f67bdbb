package gen

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/compiler/protogen"
)

func TestProtoCommentLines(t *testing.T) {
	tests := []struct {
		name string
		in   protogen.Comments
		want []string
	}{
		{"empty", "", nil},
		{"one line", " Sends a message.\n", []string{"Sends a message."}},
		{"indentation kept beyond the first space", " Example:\n   a = 1\n", []string{"Example:", "  a = 1"}},
		{"surrounding blank lines dropped", "\n\n Text.  \n\n", []string{"Text."}},
		{
			"internal notes dropped",
			" (-- api-linter: core::0133=disabled\n     aip.dev/not-precedent: kept --)\n Creates a config.\n",
			[]string{"Creates a config."},
		},
		{
			"blank runs collapsed",
			" First.\n\n (-- note --)\n\n Second.\n",
			[]string{"First.", "", "Second."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, protoCommentLines(tt.in)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
