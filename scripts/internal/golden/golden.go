// Package golden compares a test's output with a file under the test's testdata/ folder, as
// benchstat's tests compare theirs with testdata/*.stdout. Where those write what they got beside
// the file, go test -update rewrites the file itself, as gofmt's and go/printer's tests do, and
// git diff shows what changed.
package golden

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ with what the tests print now")

// Check compares got with testdata/name.golden, or writes it there with -update.
func Check(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run '^%s$' -update writes it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("%s differs from %s at %s\n(if the change is meant: go test -run '^%s$' -update, then git diff)",
			name, path, firstDifference(string(want), got), t.Name())
	}
}

// firstDifference is the first line where got differs from want, both shown.
func firstDifference(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(w), len(g)) {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\nwant %q\n got %q", i+1, a, b)
		}
	}
	return "the end"
}
