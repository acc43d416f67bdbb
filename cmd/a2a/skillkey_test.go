package main

import (
	"testing"

	"github.com/a2agen/a2agen/internal/scaffold"
)

// TestSkillKeyIsTheScaffolds: send --skill sets the metadata key the
// routing of a2a-scaffold's generated projects reads.
func TestSkillKeyIsTheScaffolds(t *testing.T) {
	if skillMetadataKey != scaffold.SkillMetadataKey {
		t.Errorf("send --skill sets %q; scaffolded agents read %q", skillMetadataKey, scaffold.SkillMetadataKey)
	}
}
