// Package golden compares a test's output with a file under testdata, the
// way gofmt's tests compare theirs; go test -update rewrites the files, for
// git diff to show what changed. The tests of figures and report use it.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/diff"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden with what the tests print now")

// Check compares got with testdata/name.golden, or rewrites that file with -update.
func Check(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run '^%s$' -update writes it)", err, t.Name())
	}
	if d := diff.Diff(path, want, "got", []byte(got)); d != nil {
		t.Errorf("if the change is meant: go test -run '^%s$' -update, then git diff\n%s", t.Name(), d)
	}
}
