// Package scripttest holds the tests of the commands of scripts/. Each
// script of testdata/ (a txtar file, run by testscript) makes a small
// workspace of its own with the workspace command, runs the real commands
// there, built once per test run, and checks what they say, what they exit
// with and what they leave behind.
package scripttest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// repository is the root of the repository whose commands are tested.
var repository, _ = filepath.Abs(filepath.Join("..", ".."))

// commands are the commands that the scripts may use beside testscript's own.
var commands = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"workspace": workspace,
	"exits":     exits,
	"leftovers": leftovers,
	"later":     later,
	"plant":     plant,
}

func TestMain(m *testing.M) {
	code := m.Run()
	if bin != "" {
		os.RemoveAll(bin)
	}
	os.Exit(code)
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{Dir: "testdata", Setup: setup, Cmds: commands})
}

// setup puts the commands of scripts/ first on the script's PATH ($bin
// names their folder, $goexe the go command), and passes on what the go
// command and git read from the environment, as a learner's shell would.
func setup(env *testscript.Env) error {
	built.Do(func() { bin, buildErr = buildCommands() })
	if buildErr != nil {
		return buildErr
	}
	goexe, err := exec.LookPath("go")
	if err != nil {
		return err
	}
	for _, kv := range os.Environ() {
		name, value, _ := strings.Cut(kv, "=")
		if passedOn(name) {
			env.Setenv(name, value)
		}
	}
	env.Setenv("PATH", bin+string(filepath.ListSeparator)+os.Getenv("PATH"))
	env.Setenv("GOWORK", "") // the go.work that workspace writes, not a learner's local.work
	// A configuration folder of the script's own, so that handin's id and learn's progress
	// never reach the real one (on Linux and Windows; macOS derives it from HOME, which the
	// go command's caches need), and the go command's own settings file where it was.
	goenv, err := exec.Command(goexe, "env", "GOENV").Output()
	if err != nil {
		return err
	}
	config, err := os.MkdirTemp("", "scripttest-config-") // outside $WORK, whose git status scripts read
	if err != nil {
		return err
	}
	env.Defer(func() { os.RemoveAll(config) })
	env.Setenv("GOENV", strings.TrimSpace(string(goenv)))
	env.Setenv("XDG_CONFIG_HOME", config)
	env.Setenv("APPDATA", config)
	env.Setenv("bin", bin)
	env.Setenv("goexe", goexe)
	return nil
}

// passedOn reports whether the variable name reaches the scripts: the
// go command's settings and caches, and where they live.
func passedOn(name string) bool {
	switch name {
	case "HOME", "USERPROFILE", "APPDATA", "LOCALAPPDATA", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "CC", "CGO_ENABLED":
		return true
	}
	return strings.HasPrefix(name, "GO") && name != "GOWORK"
}

var (
	built         sync.Once
	bin, buildErr = "", error(nil)
)

// buildCommands builds every command of scripts/ into a folder of its own.
func buildCommands() (string, error) {
	dir, err := os.MkdirTemp("", "scripttest-")
	if err != nil {
		return "", err
	}
	build := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "example.com/userperf/scripts/...")
	if out, err := build.CombinedOutput(); err != nil {
		return dir, fmt.Errorf("building the commands: %w\n%s", err, out)
	}
	return dir, nil
}

// workspace [module...] makes $WORK a git repository whose go.work uses
// every folder of $WORK with a go.mod: the script's own, bad (a stage whose
// benchmarks pass, fail, panic or take their time: testdata/bad), scripts/
// and each module of the repository named (scripts and common linked, the
// others copied, as a learner may change them).
func workspace(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! workspace")
	}
	work := ts.Getenv("WORK")
	ts.Check(os.CopyFS(filepath.Join(work, "bad"), os.DirFS("testdata/bad")))
	for _, m := range append([]string{"scripts"}, args...) {
		from, to := filepath.Join(repository, m), filepath.Join(work, m)
		if m == "scripts" || m == "common" {
			ts.Check(os.Symlink(from, to))
		} else {
			ts.Check(os.CopyFS(to, os.DirFS(from)))
		}
	}
	entries, err := os.ReadDir(work)
	ts.Check(err)
	goWork := "go 1.26.0\n\nuse (\n"
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(work, e.Name(), "go.mod")); err == nil {
			goWork += "\t./" + e.Name() + "\n"
		}
	}
	ts.Check(os.WriteFile(filepath.Join(work, "go.work"), []byte(goWork+")\n"), 0o644))
	ignore, err := os.ReadFile(filepath.Join(repository, ".gitignore")) // results, local.work
	ts.Check(err)
	ignore = append(ignore, "/.tmp/\n"...) // testscript's $TMPDIR: the go command's scratch files
	ts.Check(os.WriteFile(filepath.Join(work, ".gitignore"), ignore, 0o644))
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"commit", "-q", "-m", "a workspace"}} {
		git := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		git.Dir = work
		if out, err := git.CombinedOutput(); err != nil {
			ts.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// exits code name [arg...] runs a command as exec does, and fails unless
// it exits with code.
func exits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits code name [arg...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	got, err := 0, ts.Exec(args[1], args[2:]...)
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		got = exit.ExitCode()
	} else if err != nil {
		ts.Fatalf("%s: %v", args[1], err)
	}
	if got != want {
		ts.Fatalf("%s exited with %d, want %d", args[1], got, want)
	}
}

// leftovers succeeds when the runs left something behind: an entry under
// results/compare, or a test binary anywhere in $WORK. "! leftovers" checks
// that they left nothing.
func leftovers(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) > 0 {
		ts.Fatalf("usage: leftovers")
	}
	work := ts.Getenv("WORK")
	var found []string
	entries, _ := os.ReadDir(filepath.Join(work, "results", "compare")) // none is what ! leftovers wants
	for _, e := range entries {
		found = append(found, "results/compare/"+e.Name())
	}
	filepath.WalkDir(work, func(path string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".test") {
			found = append(found, path)
		}
		return nil
	})
	switch {
	case neg && len(found) > 0:
		ts.Fatalf("left %q", found)
	case !neg && len(found) == 0:
		ts.Fatalf("nothing left")
	}
}

// later gives each file a modification time an hour from now, as a git
// pull that changes it would make it newer than what was written from it.
func later(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: later FILE...")
	}
	t := time.Now().Add(time.Hour)
	for _, name := range args {
		ts.Check(os.Chtimes(ts.MkAbs(name), t, t))
	}
}

// plant FILE OLD NEW plants a bug: it replaces in FILE the text of the
// script's file OLD, which must occur once, with the text of its file NEW.
func plant(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: plant FILE OLD NEW")
	}
	data := ts.ReadFile(args[0])
	old, planted := ts.ReadFile(args[1]), ts.ReadFile(args[2])
	if n := strings.Count(data, old); n != 1 {
		ts.Fatalf("%s holds the text of %s %d times, want once: the stage changed, change the script", args[0], args[1], n)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(strings.Replace(data, old, planted, 1)), 0o644))
}
