package dataschema

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/types/known/structpb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

func TestCardSchemas(t *testing.T) {
	params, err := structpb.NewStruct(map[string]any{"skills": map[string]any{
		"trip":  map[string]any{"input": map[string]any{"type": "object"}},
		"other": "not an object",
	}})
	if err != nil {
		t.Fatal(err)
	}
	foreign, _ := structpb.NewStruct(map[string]any{"skills": map[string]any{"x": map[string]any{}}})
	card := &a2av1.AgentCard{Capabilities: &a2av1.AgentCapabilities{Extensions: []*a2av1.AgentExtension{
		{Uri: "https://example.com/another", Params: foreign},
		{Uri: CardExtension, Params: params},
	}}}
	want := map[string]map[string]any{"trip": {"input": map[string]any{"type": "object"}}}
	if diff := cmp.Diff(want, CardSchemas(card)); diff != "" {
		t.Errorf("CardSchemas (-want +got):\n%s", diff)
	}
	if got := CardSchemas(&a2av1.AgentCard{}); len(got) != 0 {
		t.Errorf("CardSchemas of a card without the extension = %v, want none", got)
	}
}
