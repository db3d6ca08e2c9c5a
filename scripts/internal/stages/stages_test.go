package stages

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// workspace writes a go.work that uses dirs under a new root, and a
// stage_test.go in each of stageDirs.
func workspace(t *testing.T, dirs []string, stageDirs ...string) string {
	t.Helper()
	t.Setenv("GOWORK", "") // the go.work written here, not a learner's local.work
	root := t.TempDir()
	work := "go 1.26.0\n\nuse (\n"
	for _, d := range dirs {
		work += "\t./" + d + "\n"
		write(t, filepath.Join(root, d, "go.mod"), "module example.com/"+d+"\n")
	}
	write(t, filepath.Join(root, "go.work"), work+")\n")
	for _, d := range stageDirs {
		write(t, filepath.Join(root, d, "stage_test.go"), "package main\n")
	}
	return root
}

func write(t *testing.T, file, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestList(t *testing.T) {
	root := workspace(t,
		[]string{"common", "scripts", "stage10-later", "stage1-index", "workshop/mystage", "peers", "stage0-linear", "tools", "floor"},
		"floor", "stage10-later", "stage1-index", "workshop/mystage", "stage0-linear", "unlisted")
	list, err := List(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []Folder{
		{"stage0-linear", "stage0-linear"},
		{"stage1-index", "stage1-index"},
		{"stage10-later", "stage10-later"},
		{"mystage", "workshop/mystage"},
		{"floor", "floor"},
	}
	if !slices.Equal(list, want) {
		t.Errorf("List =\n%v\nwant\n%v\n(modules without stage_test.go and folders outside go.work are no stages)", list, want)
	}
}

func TestShownLeavesOutTheWorkshop(t *testing.T) {
	root := workspace(t, []string{"floor", "stage0-linear", "mine", "workshop/solutions/quest"}, "floor", "stage0-linear", "mine", "workshop/solutions/quest")
	shown, err := Shown(root)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := Names(shown), []string{"stage0-linear", "mine", "floor"}; !slices.Equal(got, want) {
		t.Errorf("Shown = %v, want %v: a learner's stage is shown, the workshop's are not", got, want)
	}
	if found, err := Find(root, "quest"); err != nil || len(found) != 1 || found[0].Dir != "workshop/solutions/quest" {
		t.Errorf("Find(quest) = %v, %v: a workshop stage must still be found by name", found, err)
	}
}

func TestListRefusesTwoStagesOfOneName(t *testing.T) {
	root := workspace(t, []string{"a/stage1-x", "b/stage1-x"}, "a/stage1-x", "b/stage1-x")
	if _, err := List(root); err == nil || !strings.Contains(err.Error(), "stage1-x") {
		t.Errorf("two stages named stage1-x: error %v", err)
	}
}

func TestListWithoutGoWork(t *testing.T) {
	t.Setenv("GOWORK", "") // a learner's local.work, which the scripts name for their children, is no go.work here
	if _, err := List(t.TempDir()); err == nil {
		t.Error("no go.work: no error")
	}
}

func TestFind(t *testing.T) {
	root := workspace(t, []string{"stage0-linear", "stage1-index", "floor"}, "stage0-linear", "stage1-index", "floor")
	found, err := Find(root, "floor", "stage1-index")
	if err != nil || !slices.Equal(Names(found), []string{"floor", "stage1-index"}) || found[0].Dir != "floor" {
		t.Errorf("Find = %v, %v; want the floor and stage1-index, in the order asked", found, err)
	}
	_, err = Find(root, "stage0-linear", "stage9-nope", "nope")
	if err == nil || !strings.Contains(err.Error(), "no stage stage9-nope, nope (the stages: stage0-linear, stage1-index, floor)") {
		t.Errorf("unknown names: error %v", err)
	}
}

func TestCompare(t *testing.T) {
	names := []string{"floor", "zeta", "stage10-x", "alpha", "stage2-y", "stage0-z", "stage-1", "stage3"}
	slices.SortFunc(names, Compare)
	want := []string{"stage0-z", "stage2-y", "stage10-x", "alpha", "stage-1", "stage3", "zeta", "floor"}
	if !slices.Equal(names, want) {
		t.Errorf("order %q, want %q", names, want)
	}
}

func TestIsStep(t *testing.T) {
	for name, want := range map[string]bool{"stage0-linear": true, "stage12-x": true, "stage3": false, "stagex-y": false, "mystage": false, "floor": false} {
		if IsStep(name) != want {
			t.Errorf("IsStep(%q) = %v, want %v", name, !want, want)
		}
	}
}

func TestSolution(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "workshop/solutions/fix/go.mod"), "module fix\n\n// origin: workshop/quest (the stage it started from)\n")
	write(t, filepath.Join(root, "workshop/solutions/plain/go.mod"), "module plain\n\n// origin: stage2-c\n")
	list := []Folder{{Name: "stage0-a"}, {Name: "stage2-c"}, {Name: "stage10-d"}, {Name: "fix", Dir: "workshop/solutions/fix"},
		{Name: "plain", Dir: "workshop/solutions/plain"}, {Name: "mine"}, {Name: Floor}}
	for name, want := range map[string]string{"stage0-a": "stage2-c", "stage1-b": "stage2-c", "stage2-c": "plain", "stage10-d": "", "quest": "fix", "mine": "", Floor: ""} {
		if got := Solution(root, list, name); got != want {
			t.Errorf("Solution(%s) = %q, want %q (a solution whose origin is the start wins over the next step)", name, got, want)
		}
	}
}

func TestAgainst(t *testing.T) {
	root := workspace(t,
		[]string{"stage0-linear", "stage1-index", "stage2-noclone", "ex1", "ex2", "loop", "quest", "workshop/solutions/quest-fixed", "mycache"},
		"stage0-linear", "stage1-index", "stage2-noclone", "ex1", "ex2", "loop", "workshop/solutions/quest-fixed", "mycache")
	origin := func(dir, from string) {
		write(t, filepath.Join(root, dir, "go.mod"), "module example.com/"+dir+"\n\n// origin: "+from+" (the stage this module started from)\n")
	}
	origin("ex1", "stage1-index")
	origin("ex2", "ex1") // a copy of a learner's own stage
	origin("loop", "loop")
	origin("mycache", "quest") // a starting point, which is no stage
	origin("workshop/solutions/quest-fixed", "quest")
	for _, c := range []struct{ dir, from, base, reference string }{
		{"ex1", "", "stage1-index", "stage2-noclone"},
		{"ex2", "", "ex1", "stage2-noclone"},
		{"ex1", "stage0-linear", "stage0-linear", "stage1-index"},
		{"mycache", "", "", "quest-fixed"},
		{"stage2-noclone", "", "stage0-linear", ""}, // the project's own: no exercise
		{"stage0-linear", "", "", ""},
		{"loop", "", "", ""},
	} {
		base, reference, err := Against(root, c.dir, c.from)
		if err != nil || base != c.base || reference != c.reference {
			t.Errorf("Against(%s, from %q) = %q, %q, %v; want %q, %q", c.dir, c.from, base, reference, err, c.base, c.reference)
		}
	}
}
