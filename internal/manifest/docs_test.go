package manifest

import (
	"os"
	"slices"
	"strings"
	"testing"
)

const docsPath = "../../docs/manifest.md"

// TestDocsDescribeEveryKey checks that docs/manifest.md documents every key
// the decoder knows (as `path` in a table), so the reference cannot fall
// behind the format.
func TestDocsDescribeEveryKey(t *testing.T) {
	doc, err := os.ReadFile(docsPath)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	shapeKeys(manifestShape, "", keys)
	var missing []string
	for k := range keys {
		documented := strings.Contains(string(doc), "| `"+k+"` |")
		// Extended-card skills are skills; their keys are documented once.
		if rest, ok := strings.CutPrefix(k, "extendedCard.skills[]."); ok {
			documented = strings.Contains(string(doc), "| `skills[]."+rest+"` |")
		}
		if !documented {
			missing = append(missing, k)
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Errorf("%s does not document: %v", docsPath, missing)
	}
}

// TestDocsExampleIsValid parses the complete example of docs/manifest.md.
func TestDocsExampleIsValid(t *testing.T) {
	doc, err := os.ReadFile(docsPath)
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(doc), "## A complete example")
	if !ok {
		t.Fatal("no complete example section")
	}
	_, block, ok := strings.Cut(after, "```yaml\n")
	if !ok {
		t.Fatal("no yaml block in the example section")
	}
	block, _, _ = strings.Cut(block, "```")
	if _, err := Parse("docs/manifest.md example", []byte(block)); err != nil {
		t.Errorf("the documented example is invalid:\n%v", err)
	}
}
