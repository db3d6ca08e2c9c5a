// Package scripttest holds tests of the commands of scripts/: each runs a
// command in a small workspace of its own, with a stage whose benchmarks
// pass, fail or panic, and checks what the command says, what it exits with
// and what it leaves behind.
package scripttest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// badStage is a stage's test file whose benchmarks pass, fail, panic, or
// take their time.
const badStage = `package bad

import (
	"testing"
	"time"
)

func BenchmarkGood(b *testing.B) { for b.Loop() {} }

func BenchmarkFails(b *testing.B) { b.Fatal("the answer is wrong") }

func BenchmarkPanics(b *testing.B) { panic("boom") }

func BenchmarkSlow(b *testing.B) {
	for b.Loop() {
		time.Sleep(100 * time.Millisecond)
	}
}
`

// workspace is a git repository with a go.work that uses this folder's
// scripts, one stage, bad, and the named modules of the repository (common
// is linked, others are copied); it returns its root.
func workspace(t *testing.T, modules ...string) string {
	t.Helper()
	t.Setenv("GOWORK", "") // the go.work written here, not a learner's local.work
	root := t.TempDir()
	work := "go 1.26.0\n\nuse (\n\t./bad\n\t./scripts\n"
	for _, m := range append([]string{"scripts"}, modules...) {
		if m != "scripts" {
			work += "\t./" + m + "\n"
		}
		from, err := filepath.Abs(filepath.Join("..", "..", m))
		if err != nil {
			t.Fatal(err)
		}
		if m == "scripts" || m == "common" {
			err = os.Symlink(from, filepath.Join(root, m))
		} else {
			err = os.CopyFS(filepath.Join(root, m), os.DirFS(from))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(root, "go.work"), work+")\n")
	ignore, err := os.ReadFile("../../.gitignore") // results, local.work
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(root, ".gitignore"), string(ignore))
	write(t, filepath.Join(root, "bad", "go.mod"), "module example.com/bad\n\ngo 1.26.0\n")
	write(t, filepath.Join(root, "bad", "stage_test.go"), badStage)
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"commit", "-q", "-m", "a stage"}} {
		git := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		git.Dir = root
		if out, err := git.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return root
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// script is the command name of scripts/, built once per test run, ready to
// run in the workspace at root as go run would run it there.
func script(root, name string, args ...string) *exec.Cmd {
	built.Do(func() { bin, buildErr = buildCommands() })
	if buildErr != nil {
		panic(buildErr)
	}
	cmd := exec.Command(filepath.Join(bin, name+exe), args...)
	cmd.Dir = root
	return cmd
}

var (
	built         sync.Once
	bin, buildErr = "", error(nil)
	exe           = exeSuffix()
)

// exeSuffix is what go build adds to a command's name here: ".exe" on Windows.
func exeSuffix() string {
	if runtime.GOOS == "windows" {
		return ".exe"
	}
	return ""
}

// buildCommands builds every command of scripts/ into a folder of its own.
func buildCommands() (string, error) {
	dir, err := os.MkdirTemp("", "scripttest-")
	if err != nil {
		return "", err
	}
	out, err := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "example.com/userperf/scripts/...").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("building the commands: %v\n%s", err, out)
	}
	return dir, nil
}

// run runs cmd and returns its exit code and its output, stdout and stderr
// together.
func run(t *testing.T, cmd *exec.Cmd) (int, string) {
	t.Helper()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String()
}

// leftovers lists what the runs left under results/compare, and every
// test binary in the workspace.
func leftovers(t *testing.T, root string) []string {
	t.Helper()
	var found []string
	entries, _ := os.ReadDir(filepath.Join(root, "results", "compare"))
	for _, e := range entries {
		found = append(found, "results/compare/"+e.Name())
	}
	filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".test") {
			found = append(found, path)
		}
		return nil
	})
	return found
}
