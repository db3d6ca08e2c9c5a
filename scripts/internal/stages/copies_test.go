package stages

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// exerciseFiles are, for each solution in workshop/solutions, the files
// that its exercise changes in the stage it was copied from (its go.mod's
// "// origin:" line). Every other file that the two folders share must stay
// byte for byte the same, or `diff -ruN origin solution` would show more
// than the exercise: a fix made in a stage must be made in its copies too.
var exerciseFiles = map[string][]string{
	"ex4-plain-append":     {"encode.go", "go.mod", "main.go"},
	"quest6-cache-fixed":   {"README.md", "cache.go", "go.mod", "main.go", "store.go"},
	"quest7-logging-fixed": {"README.md", "go.mod", "log.go", "main.go", "store.go"},
}

// peerCopies are the files of peers/ that are stage4-append's own, copied
// so that a checkout without symbolic links (Windows) still builds them.
var peerCopies = []string{"buffer.go", "encode.go", "encode_test.go", "escape.go"}

// TestSolutionsShareTheirOriginsFiles checks every solution of the
// workspace against its origin, outside the files of exerciseFiles.
func TestSolutionsShareTheirOriginsFiles(t *testing.T) {
	root := repositoryRoot(t)
	list, err := List(root)
	if err != nil {
		t.Fatal(err)
	}
	solutions := 0
	for _, s := range list {
		if !strings.HasPrefix(s.Dir, "workshop/solutions/") {
			continue
		}
		solutions++
		origin := Origin(root, s.Dir)
		if origin == "" {
			t.Errorf("%s has no // origin: line in its go.mod", s.Dir)
			continue
		}
		allowed, ok := exerciseFiles[s.Name]
		if !ok {
			t.Errorf("%s is not in exerciseFiles: list the files its exercise changes in %s", s.Dir, origin)
			continue
		}
		shared := sharedFiles(t, filepath.Join(root, origin), filepath.Join(root, s.Dir))
		for _, file := range shared {
			same := sameBytes(t, filepath.Join(root, origin, file), filepath.Join(root, s.Dir, file))
			switch changed := slices.Contains(allowed, file); {
			case !same && !changed:
				t.Errorf("%s/%s differs from %s/%s, which it is a copy of: make the same change in both, "+
					"or add the file to exerciseFiles if the exercise changes it", s.Dir, file, origin, file)
			case same && changed:
				t.Errorf("%s/%s is the same as %s/%s again: take it out of exerciseFiles, so that the list "+
					"names only what the exercise changes", s.Dir, file, origin, file)
			}
		}
		for _, file := range allowed {
			if !slices.Contains(shared, file) {
				t.Errorf("exerciseFiles lists %s for %s, but %s and %s do not both have it", file, s.Name, s.Dir, origin)
			}
		}
	}
	if solutions == 0 {
		t.Fatalf("no solution under workshop/solutions in %s: the test checked nothing", root)
	}
}

// TestPeersCopyStage4 checks that peers/ measures stage4-append's encoder
// as it is: each copied file is the stage's, byte for byte.
func TestPeersCopyStage4(t *testing.T) {
	root := repositoryRoot(t)
	for _, file := range peerCopies {
		peer, stage := filepath.Join(root, "peers", file), filepath.Join(root, "stage4-append", file)
		if info, err := os.Lstat(peer); err != nil {
			t.Error(err)
		} else if !info.Mode().IsRegular() {
			t.Errorf("peers/%s is not a plain file (a symbolic link, say): copy stage4-append/%s there, so that every checkout has it", file, file)
		} else if !sameBytes(t, stage, peer) {
			t.Errorf("peers/%s differs from stage4-append/%s: copy the stage's file again", file, file)
		}
	}
}

// sharedFiles returns the files, relative and slash-separated, that both
// folders have, sorted.
func sharedFiles(t *testing.T, a, b string) []string {
	t.Helper()
	inA, inB := files(t, a), files(t, b)
	return slices.DeleteFunc(inA, func(f string) bool { return !slices.Contains(inB, f) })
}

// files returns the regular files under dir, relative and slash-separated,
// sorted.
func files(t *testing.T, dir string) []string {
	t.Helper()
	var list []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		list = append(list, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(list)
	return list
}

func sameBytes(t *testing.T, a, b string) bool {
	t.Helper()
	x, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	y, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(x, y)
}

// repositoryRoot returns the folder of the go.work above the test's
// folder: the repository whose copies are checked.
func repositoryRoot(t *testing.T) string {
	t.Helper()
	t.Setenv("GOWORK", "") // the repository's go.work, not a learner's local.work
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.work above the test's folder")
		}
		dir = parent
	}
}
