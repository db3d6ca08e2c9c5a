package provenance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"example.com/userperf/scripts/internal/pages"
)

// TestUpdateFileFolds regenerates a block between a question and its answer, and a block after
// the answer: the first is written folded, so that the answer stays closed, the second is not.
func TestUpdateFileFolds(t *testing.T) {
	page := "Predict first: how fast? <!-- question q ask=x rows=R: go run ./scripts/compare s -->\n\n" +
		"<!-- BEGIN GENERATED: a -->\nold\n<!-- END GENERATED: a -->\n\n<details><summary>Answer</summary>\n\nfast\n</details>\n\n" +
		"<!-- BEGIN GENERATED: b -->\nold\n<!-- END GENERATED: b -->\n"
	path := filepath.Join(t.TempDir(), "p.md")
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 2 { // once to fold, once more to keep the fold
		if err := UpdateFile(path, Block{"a", "new a\n"}, Block{"b", "new b\n"}); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := os.ReadFile(path)
	want := "<!-- BEGIN GENERATED: a -->\n" + pages.Fold + "\n\nnew a\n\n</details>\n<!-- END GENERATED: a -->"
	if got := string(data); !strings.Contains(got, want) || !strings.Contains(got, "<!-- BEGIN GENERATED: b -->\nnew b\n<!-- END") {
		t.Errorf("UpdateFile wrote:\n%s\nwant block a folded:\n%s\nand block b as it is", got, want)
	}
}
