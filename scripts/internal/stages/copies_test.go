package stages

import (
	"bytes"
	"io/fs"
	"maps"
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
	"ex4-plain-append":     {"encode.go", "go.mod", "main.go"}, // its README.md is its own: stages hold no chapter
	"quest6-cache-fixed":   {"README.md", "cache.go", "go.mod", "main.go", "store.go"},
	"quest7-logging-fixed": {"README.md", "go.mod", "log.go", "main.go", "store.go"},
}

// peerCopies are the files of peers/ that are stage4-append's own, copied
// so that a checkout without symbolic links (Windows) still builds them.
var peerCopies = []string{"buffer.go", "encode.go", "encode_test.go", "escape.go"}

// carried are the files that a step takes unchanged from the step before
// it: for each file, the steps that carry it, each from the step just before
// it in the order of List. A fix made to one copy must reach every copy,
// or diffing two neighbours would show a change that is no step's idea.
// A step that changes a carried file on purpose leaves its list; a file
// that two neighbouring steps share unchanged must be listed, so that no
// copy goes unguarded.
var carried = map[string][]string{
	"stage_test.go":  {"stage1-index", "stage2-noclone", "stage3-parallel", "stage4-append", "stage5-materialized", "stage6-blocks"},
	"encode.go":      {"stage1-index"},
	"view_test.go":   {"stage3-parallel", "stage4-append", "stage5-materialized"},
	"store.go":       {"stage4-append"},
	"buffer.go":      {"stage4-append", "stage5-materialized", "stage6-blocks"},
	"buffer_test.go": {"stage4-append", "stage5-materialized", "stage6-blocks"},
	"escape.go":      {"stage5-materialized", "stage6-blocks"},
}

// TestCarriedFilesStayTheSame checks every step's carried files against
// the step before it, and that carried lists every file that two
// neighbouring steps share byte for byte.
func TestCarriedFilesStayTheSame(t *testing.T) {
	root := repositoryRoot(t)
	list, err := List(root)
	if err != nil {
		t.Fatal(err)
	}
	steps := Names(slices.DeleteFunc(list, func(s Folder) bool { return !IsStep(s.Name) }))
	for _, file := range slices.Sorted(maps.Keys(carried)) {
		carriers := carried[file]
		for _, step := range carriers {
			i := slices.Index(steps, step)
			if i <= 0 {
				t.Errorf("carried lists %s for %s, which is not a step after another in %s", step, file, root)
				continue
			}
			before := steps[i-1]
			from, to := filepath.Join(root, before, file), filepath.Join(root, step, file)
			if !exists(from) || !exists(to) {
				t.Errorf("carried lists %s for %s, but %s and %s do not both have it", step, file, before, step)
			} else if !sameBytes(t, from, to) {
				t.Errorf("%s/%s differs from %s/%s, which it carries unchanged: make the change in every copy (%s), "+
					"or, if %s changes %s on purpose, take %s out of carried[%q]",
					step, file, before, file, strings.Join(copiesOf(steps, file, step), ", "), step, file, step, file)
			}
		}
	}
	for i := 1; i < len(steps); i++ {
		before, step := steps[i-1], steps[i]
		for _, file := range sharedFiles(t, filepath.Join(root, before), filepath.Join(root, step)) {
			if !slices.Contains(carried[file], step) && sameBytes(t, filepath.Join(root, before, file), filepath.Join(root, step, file)) {
				t.Errorf("%s/%s is the same as %s/%s, but carried does not list %s for it: add it, "+
					"so that a change to one copy fails until every copy has it", step, file, before, file, step)
			}
		}
	}
}

// copiesOf returns the steps that hold the same copy of file as step,
// by carried: the run of carriers around step and the step they carry it from.
func copiesOf(steps []string, file, step string) []string {
	first, last := slices.Index(steps, step), slices.Index(steps, step)
	for first > 0 && slices.Contains(carried[file], steps[first]) {
		first--
	}
	for last+1 < len(steps) && slices.Contains(carried[file], steps[last+1]) {
		last++
	}
	return steps[first : last+1]
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

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
