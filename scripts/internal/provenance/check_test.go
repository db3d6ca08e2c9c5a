package provenance

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// repo is a temporary git repository laid out like this one.
type repo struct {
	t    *testing.T
	root string
}

func newRepo(t *testing.T) *repo {
	r := &repo{t, t.TempDir()}
	r.git("init", "-q")
	r.write("go.work", "go 1.26.0\n\nuse (\n\t./common\n\t./stage0-linear\n\t./peers\n)\n")
	r.write("common/go.mod", "module example.com/common\n")
	r.write("stage0-linear/go.mod", "module example.com/stage0\n")
	r.write("stage0-linear/stage_test.go", "package main\n")
	r.write("stage0-linear/store.go", "package main\n")
	r.write("peers/go.mod", "module example.com/peers\n")
	r.write("scripts/compare/main.go", "package main\n")
	r.write("scripts/report/main.go", "package main\n")
	r.commit()
	return r
}

func (r *repo) git(args ...string) string {
	r.t.Helper()
	out, err := exec.Command("git", append([]string{"-C", r.root, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...).CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func (r *repo) write(name, content string) {
	r.t.Helper()
	path := filepath.Join(r.root, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// commit commits everything and returns the short hash of HEAD.
func (r *repo) commit() string {
	r.git("add", "-A")
	r.git("commit", "-q", "-m", "x")
	return r.git("rev-parse", "--short", "HEAD")
}

// figures writes a README with a generated block, a page with another whose
// line also names the command that made its table, and a chart, all
// measured at HEAD, and commits them, as the report command and a commit would.
func (r *repo) figures() (measured string) {
	measured = r.git("rev-parse", "--short", "HEAD")
	config := map[string]string{"commit": measured, "command": "go run ./scripts/compare"}
	line := Line(config)
	r.write("README.md", "# Title\n\n<!-- BEGIN GENERATED: stages -->\n| a |\n\n"+line+"\n<!-- END GENERATED: stages -->\n")
	r.write("docs/results.md", "<!-- BEGIN GENERATED: mixed -->\n| b |\n\n"+Line(config, "go run ./scripts/report")+"\n<!-- END GENERATED: mixed -->\n")
	r.write("docs/charts/time.svg", "<svg><text>"+line+"</text></svg>\n")
	r.commit()
	return measured
}

// check runs Check and returns whether it passed and what it printed
// before its summary.
func (r *repo) check() (bool, []string) {
	r.t.Helper()
	var out strings.Builder
	ok, err := Check(&out, r.root)
	if err != nil {
		r.t.Fatal(err)
	}
	printed := lines(strings.TrimSpace(out.String()))
	return ok, printed[:len(printed)-1]
}

func TestFreshFiguresPass(t *testing.T) {
	r := newRepo(t)
	r.figures()
	// Prose, a command and libraries that only present or choose, and a
	// module that is no stage are not measured code.
	r.write("docs/stage0-linear.md", "# Stage 0\n\nMore prose.\n")
	r.write("scripts/report/main.go", "package main\n\nvar changed int\n")
	r.write("scripts/internal/figures/chart.go", "package figures\n\nvar changed int\n")
	r.write("scripts/internal/stages/stages.go", "package stages\n\nvar changed int\n")
	r.write("scripts/internal/harness/cmd.go", "package harness\n\nvar changed int\n")
	r.write("workshop/quest/quest.go", "package quest\n\nvar changed int\n")
	r.commit()
	if ok, printed := r.check(); !ok || len(printed) != 0 {
		t.Errorf("fresh figures: OK %v, printed %q", ok, printed)
	}
}

func TestCodeChangedAfterTheFigures(t *testing.T) {
	for _, changed := range [][]string{
		{"stage0-linear/store.go"},
		{"scripts/compare/main.go", "scripts/internal/harness/rounds.go"}, // the harness, not its tests
	} {
		r := newRepo(t)
		measured := r.figures()
		for _, file := range changed {
			r.write(file, "// changed\n")
		}
		r.write("scripts/internal/harness/rounds_test.go", "package harness\n")
		r.commit()
		why := "measured at " + measured + "; changed since: " + strings.Join(changed, ", ")
		want := []string{"stale: README.md, block stages: " + why, "stale: docs/charts/time.svg: " + why, "stale: docs/results.md, block mixed: " + why}
		if ok, printed := r.check(); ok || !slices.Equal(printed, want) {
			t.Errorf("after changing %s: OK %v, printed\n%s\nwant\n%s", changed, ok, strings.Join(printed, "\n"), strings.Join(want, "\n"))
		}
	}
}

func TestUncommittedMeasuredCode(t *testing.T) {
	r := newRepo(t)
	r.figures()
	r.write("common/bench/bench.go", "package bench\n")
	r.write("docs/stage0-linear.md", "uncommitted prose is not measured\n")
	if ok, printed := r.check(); ok || !slices.Equal(printed, []string{"uncommitted: common/bench/bench.go"}) {
		t.Errorf("OK %v, printed %q; want common/bench/bench.go uncommitted", ok, printed)
	}
	if commit, _ := Commit(r.root); commit != r.git("rev-parse", "--short", "HEAD")+" "+Uncommitted {
		t.Errorf("Commit = %q, want it marked as uncommitted", commit)
	}
}

func TestFiguresWithoutACommit(t *testing.T) {
	r := newRepo(t)
	head := r.git("rev-parse", "--short", "HEAD")
	r.write("README.md", "<!-- BEGIN GENERATED: typed -->\n| 42µs |\n<!-- END GENERATED: typed -->\n"+
		"<!-- BEGIN GENERATED: dirty -->\ncommit `"+head+"` "+Uncommitted+"\n<!-- END GENERATED: dirty -->\n"+
		"<!-- BEGIN GENERATED: gone -->\ncommit `abcdef0`\n<!-- END GENERATED: gone -->\n"+
		"<!-- BEGIN GENERATED: crossed -->\ncommit `"+head+"`\n<!-- END GENERATED: other -->\n"+
		"<!-- BEGIN GENERATED: open -->\n")
	r.commit()
	var out strings.Builder
	if _, err := Check(&out, r.root); err != nil {
		t.Fatal(err)
	}
	printed := lines(strings.TrimSpace(out.String()))
	want := []string{
		"stale: README.md, block typed: records no commit",
		"stale: README.md, block dirty: measured at " + head + " " + Uncommitted + ": no commit holds that code",
		"stale: README.md, block gone: records commit abcdef0, which git cannot compare with HEAD",
		"stale: README.md, block crossed: ends at the end marker of other", // once, and counted once
		"stale: README.md: a BEGIN GENERATED marker has no END GENERATED marker",
		"report: 5 of 5 generated blocks and charts are stale, 0 measured files differ from HEAD; commit the code, then measure again " +
			"(go run ./scripts/compare --thorough, go run ./scripts/load, go run ./scripts/report --profiles)",
	}
	if !slices.Equal(printed, want) {
		t.Errorf("printed:\n%s\nwant:\n%s", strings.Join(printed, "\n"), strings.Join(want, "\n"))
	}
}

func TestCommitOfACleanTree(t *testing.T) {
	r := newRepo(t)
	r.write("README.md", "prose changes do not make a measurement uncommitted\n")
	if got, err := Commit(r.root); err != nil || got != r.git("rev-parse", "--short", "HEAD") {
		t.Errorf("Commit = %q, %v", got, err)
	}
}

func TestCommentsDoNotMakeFiguresStale(t *testing.T) {
	r := newRepo(t)
	r.write("stage0-linear/store.go", "package main\n\nfunc f() int { return 1 }\n")
	r.commit()
	measured := r.figures()

	// A comment, gofmt's layout and a stray copy change no build.
	r.write("stage0-linear/store.go", "// Package main is stage 0.\npackage main\n\n// f says why.\nfunc f() int {\n\treturn 1 // one\n}\n")
	r.write("stage0-linear/store.go.orig", "leftover of a merge\n")
	if ok, printed := r.check(); !ok || len(printed) != 0 {
		t.Errorf("a comment, uncommitted: OK %v, printed %q", ok, printed)
	}
	if commit, _ := Commit(r.root); strings.Contains(commit, Uncommitted) {
		t.Errorf("Commit = %q after a comment changed, want no mark", commit)
	}
	r.commit()
	if ok, printed := r.check(); !ok || len(printed) != 0 {
		t.Errorf("a comment, committed: OK %v, printed %q", ok, printed)
	}

	// A directive is read by the compiler: it changes the code.
	r.write("stage0-linear/store.go", "package main\n\n//go:noinline\nfunc f() int { return 1 }\n")
	if ok, printed := r.check(); ok || !slices.Equal(printed, []string{"uncommitted: stage0-linear/store.go"}) {
		t.Errorf("a directive, uncommitted: OK %v, printed %q", ok, printed)
	}
	r.commit()
	why := "measured at " + measured + "; changed since: stage0-linear/store.go"
	want := []string{"stale: README.md, block stages: " + why, "stale: docs/charts/time.svg: " + why, "stale: docs/results.md, block mixed: " + why}
	if ok, printed := r.check(); ok || !slices.Equal(printed, want) {
		t.Errorf("a directive, committed: OK %v, printed\n%s\nwant\n%s", ok, strings.Join(printed, "\n"), strings.Join(want, "\n"))
	}
}
