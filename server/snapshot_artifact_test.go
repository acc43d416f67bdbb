package server

import (
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// withArtifact applies a chunk to a copy: appended to the parts of the
// artifact with its id (name kept, the chunk's metadata taking over), that
// artifact replaced, or a new one added, whichever artifact of several it
// is, one generation more; the task it started from is left as it was.
func TestWithArtifactAppliesChunksToACopy(t *testing.T) {
	part := func(s string) []*a2av1.Part { return []*a2av1.Part{TextPart(s)} }
	meta, _ := structpb.NewStruct(map[string]any{"k": "v"})
	for _, tt := range []struct {
		name  string
		ids   []string // the task's artifacts, each with part "<id>0"
		chunk *a2av1.Artifact
		add   bool
		want  []*a2av1.Artifact
	}{
		{"first", nil, &a2av1.Artifact{ArtifactId: "a", Parts: part("a1")}, true,
			[]*a2av1.Artifact{{ArtifactId: "a", Parts: part("a1")}}},
		{"appended to the only one", []string{"a"}, &a2av1.Artifact{ArtifactId: "a", Parts: part("a1"), Metadata: meta}, true,
			[]*a2av1.Artifact{{ArtifactId: "a", Name: "name a", Parts: append(part("a0"), part("a1")...), Metadata: meta}}},
		{"appended to the second of two", []string{"a", "b"}, &a2av1.Artifact{ArtifactId: "b", Parts: part("b1")}, true,
			[]*a2av1.Artifact{{ArtifactId: "a", Name: "name a", Parts: part("a0")}, {ArtifactId: "b", Name: "name b", Parts: append(part("b0"), part("b1")...)}}},
		{"replacing", []string{"a", "b"}, &a2av1.Artifact{ArtifactId: "a", Parts: part("a1")}, false,
			[]*a2av1.Artifact{{ArtifactId: "a", Parts: part("a1")}, {ArtifactId: "b", Name: "name b", Parts: part("b0")}}},
		{"a new one", []string{"a"}, &a2av1.Artifact{ArtifactId: "c", Parts: part("c1")}, true,
			[]*a2av1.Artifact{{ArtifactId: "a", Name: "name a", Parts: part("a0")}, {ArtifactId: "c", Parts: part("c1")}}},
	} {
		task := &a2av1.Task{Id: "t", ContextId: "c", Generation: 3}
		for _, id := range tt.ids {
			task.Artifacts = append(task.Artifacts, &a2av1.Artifact{ArtifactId: id, Name: "name " + id, Parts: part(id + "0")})
		}
		before := proto.Clone(task)
		got := withArtifact(task, tt.chunk, tt.add)
		want := &a2av1.Task{Id: "t", ContextId: "c", Generation: 4, Artifacts: tt.want}
		if !proto.Equal(got, want) {
			t.Errorf("%s: %v, want %v", tt.name, got, want)
		}
		if !proto.Equal(task, before) {
			t.Errorf("%s: the task applied to changed: %v, was %v", tt.name, task, before)
		}
	}
}
