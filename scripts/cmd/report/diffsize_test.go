package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDiffSize counts a changed, an added and a removed Go file, and leaves
// out a test file and a README, as the stages table promises.
func TestDiffSize(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"a/store.go":      "package main\n\nfunc a() {}\n",
		"b/store.go":      "package main\n\nfunc b() {}\nfunc c() {}\n", // 1 removed, 2 added
		"a/gone.go":       "package main\n",                             // 1 removed
		"b/new.go":        "package main\n\nvar x = 1\n",                // 3 added
		"b/store_test.go": "package main\n",
		"b/README.md":     "# notes\n",
	}
	for name, text := range files {
		writeFile(t, filepath.Join(root, name), text)
	}
	if got, want := diffSize(root, "a", "b"), "3 files, 7 lines"; got != want {
		t.Errorf("diffSize = %q, want %q", got, want)
	}
	if got := diffSize(root, "a", ""); got != "?" {
		t.Errorf("diffSize with no folder = %q, want ?", got)
	}
	if err := os.RemoveAll(filepath.Join(root, "b")); err != nil {
		t.Fatal(err)
	}
	if got := diffSize(root, "a", "b"); got != "?" {
		t.Errorf("diffSize against a missing folder = %q, want ?", got)
	}
}
