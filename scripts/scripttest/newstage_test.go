package scripttest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	modules := func() *exec.Cmd {
		list := exec.Command("go", "list", "-m")
		list.Dir, list.Env = root, append(os.Environ(), "GOWORK="+filepath.Join(root, "local.work"))
		return list
	}
	if code, out := run(t, modules()); code != 0 || !strings.Contains(out, "example.com/userperf/ex1\n") {
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
	if _, err := os.Stat(filepath.Join(root, "ex1")); err == nil {
		t.Errorf("after --remove, ex1 is still there")
	}
	// local.work stays, without ex1, so that a shell whose GOWORK names it still runs go.
	if code, out := run(t, modules()); code != 0 || strings.Contains(out, "ex1") || !strings.Contains(out, "example.com/userperf/common\n") {
		t.Errorf("the modules of local.work after --remove of the last stage: exit %d\n%s", code, out)
	}
	if s := gitStatus(); s != "" {
		t.Errorf("git status after --remove:\n%s", s)
	}
}

// A shell whose GOWORK names local.work before any stage exists: the go command stops before any
// code of scripts/ runs, and new-stage's usage says the one line that writes the file.
func TestNewStageWritesLocalWork(t *testing.T) {
	root := workspace(t, "common", "stage0-linear")
	_, usage := run(t, script(root, "new-stage", "--help"))
	if fix := "GOWORK= go run ./scripts/new-stage --list writes it"; !strings.Contains(usage, fix) {
		t.Errorf("new-stage --help does not say %q:\n%s", fix, usage)
	}
	if code, out := run(t, script(root, "new-stage", "--list")); code != 0 || out != "no stage made by new-stage here\n" {
		t.Errorf("--list with no stage: exit %d\n%s", code, out)
	}
	modules := exec.Command("go", "list", "-m")
	modules.Dir, modules.Env = root, append(os.Environ(), "GOWORK="+filepath.Join(root, "local.work"))
	if code, out := run(t, modules); code != 0 || !strings.Contains(out, "example.com/userperf/common\n") {
		t.Errorf("the modules of local.work that --list wrote: exit %d\n%s", code, out)
	}
	// A go.work changed since, as by a git pull: every command says how to write local.work again.
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(root, "go.work"), later, later); err != nil {
		t.Fatal(err)
	}
	stale := "go.work changed after local.work"
	if _, out := run(t, script(root, "check", "nosuch")); !strings.Contains(out, stale) {
		t.Errorf("check, with a go.work newer than local.work, does not say %q:\n%s", stale, out)
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

// A copy that fails go vet is undone: no folder, and no line in local.work.
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
	if _, err := os.Stat(filepath.Join(root, "ex1")); err == nil {
		t.Errorf("after a failed go vet, ex1 is still there")
	}
	if work, _ := os.ReadFile(filepath.Join(root, "local.work")); strings.Contains(string(work), "ex1") {
		t.Errorf("after a failed go vet, local.work lists ex1:\n%s", work)
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
