package scripttest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A learner's stage is made, seen by the scripts, kept out of git, and
// removed without a trace.
func TestNewStageRoundTrip(t *testing.T) {
	root := workspace(t, "common", "stage0-linear")
	gitStatus := func() string {
		out, err := exec.Command("git", "-C", root, "status", "--porcelain", "--ignored=no").CombinedOutput()
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	if code, out := run(t, script(root, "new-stage", "ex1", "--from", "stage0-linear")); code != 0 {
		t.Fatalf("new-stage ex1: exit %d\n%s", code, out)
	}
	if s := gitStatus(); s != "" {
		t.Errorf("git status after new-stage:\n%s", s)
	}
	mod, _ := os.ReadFile(filepath.Join(root, "ex1", "go.mod"))
	if !strings.Contains(string(mod), "module example.com/userperf/ex1\n") || !strings.Contains(string(mod), "\n// origin: stage0-linear ") {
		t.Errorf("ex1/go.mod:\n%s", mod)
	}
	if code, out := run(t, script(root, "new-stage", "--list")); code != 0 || out != "  ex1 from stage0-linear\n" {
		t.Errorf("--list: exit %d\n%s", code, out)
	}
	modules := exec.Command("go", "list", "-m")
	modules.Dir, modules.Env = root, append(os.Environ(), "GOWORK="+filepath.Join(root, "local.work"))
	if code, out := run(t, modules); code != 0 || !strings.Contains(out, "example.com/userperf/ex1\n") {
		t.Errorf("the modules of local.work: exit %d\n%s", code, out)
	}
	if code, out := run(t, script(root, "new-stage", "ex1")); code == 0 || !strings.Contains(out, "ex1 already exists") {
		t.Errorf("ex1 made twice: exit %d\n%s", code, out)
	}
	if code, out := run(t, script(root, "new-stage", "--remove", "stage0-linear")); code == 0 {
		t.Errorf("--remove of a stage it did not make: exit 0\n%s", out)
	}
	if code, out := run(t, script(root, "new-stage", "--remove", "ex1")); code != 0 {
		t.Fatalf("--remove ex1: exit %d\n%s", code, out)
	}
	for _, gone := range []string{"ex1", "local.work"} {
		if _, err := os.Stat(filepath.Join(root, gone)); err == nil {
			t.Errorf("after --remove, %s is still there", gone)
		}
	}
	if s := gitStatus(); s != "" {
		t.Errorf("git status after --remove:\n%s", s)
	}
}

// A copy keeps the origin's tests that the exercise's reference has
// unchanged, and leaves out the rest: they test what the exercise changes.
// Exercise 5 from stage 4: its reference, stage 5, has no parallel_test.go, and an
// encode_test.go that checks lists through the new types.
func TestNewStageLeavesOutTestsTheExerciseChanges(t *testing.T) {
	root := workspace(t, "common", "stage4-append", "stage5-materialized")
	code, out := run(t, script(root, "new-stage", "ex5", "--from", "stage4-append"))
	if code != 0 {
		t.Fatalf("new-stage ex5: exit %d\n%s", code, out)
	}
	for _, said := range []string{
		"left out parallel_test.go: stage5-materialized has no such test",
		"left out encode_test.go: stage5-materialized's differs",
	} {
		if !strings.Contains(out, said) {
			t.Errorf("new-stage did not say %q:\n%s", said, out)
		}
	}
	for file, kept := range map[string]bool{"stage_test.go": true, "view_test.go": true, "buffer_test.go": true,
		"parallel_test.go": false, "encode_test.go": false} {
		if _, err := os.Stat(filepath.Join(root, "ex5", file)); (err == nil) != kept {
			t.Errorf("ex5/%s: kept %v, want %v", file, err == nil, kept)
		}
	}
}

// A copy that fails go vet is undone: no folder, no local.work.
func TestNewStageUndoesAFailure(t *testing.T) {
	root := workspace(t)
	write(t, filepath.Join(root, "undone", "go.mod"), "module example.com/undone\n\ngo 1.26.0\n")
	write(t, filepath.Join(root, "undone", "main.go"), "// A stage would call api.Main(\"undone\", New).\npackage main\n\nimport \"fmt\"\n\nfunc main() { fmt.Printf(\"%d\\n\", \"not a number\") }\n")
	if out, err := exec.Command("go", "-C", root, "work", "use", "./undone").CombinedOutput(); err != nil {
		t.Fatalf("go work use: %v\n%s", err, out)
	}
	code, out := run(t, script(root, "new-stage", "ex1", "--from", "undone"))
	if code != 1 || !strings.Contains(out, "new-stage: ex1 not made; undoing") {
		t.Errorf("exit %d\n%s", code, out)
	}
	for _, gone := range []string{"ex1", "local.work"} {
		if _, err := os.Stat(filepath.Join(root, gone)); err == nil {
			t.Errorf("after a failed go vet, %s is still there", gone)
		}
	}
}

// A name that Go reads as a major version (v2: example.com/userperf/v2) or that the repository
// uses is refused before anything is made; its test binary would be named after the module's parent.
func TestNewStageRefusesNames(t *testing.T) {
	root := workspace(t)
	for _, name := range []string{"v2", "stage9-mine", "results", "Ex1", "1ex"} {
		code, out := run(t, script(root, "new-stage", name))
		if _, err := os.Stat(filepath.Join(root, name)); code != 2 || !strings.Contains(out, "is not a valid name") || err == nil {
			t.Errorf("new-stage %s: exit %d, folder made: %v\n%s", name, code, err == nil, out)
		}
	}
}
