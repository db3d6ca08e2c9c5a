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
	t.Helper()
	r := &repo{t, t.TempDir()}
	r.git("init", "-q")
	r.write("go.work", "go 1.26.0\n\nuse (\n\t./common\n\t./stage0-linear\n\t./peers\n)\n")
	r.write("common/go.mod", "module example.com/common\n")
	r.write("floor/floor.go", "package main\n")
	r.write("stage0-linear/go.mod", "module example.com/stage0\n")
	r.write("stage0-linear/stage_test.go", "package main\n")
	r.write("stage0-linear/store.go", "package main\n")
	r.write("peers/go.mod", "module example.com/peers\n")
	r.write("peers/peers.go", "package peers\n") // a module, but no stage
	r.write("scripts/compare.sh", "#!/bin/sh\n")
	r.write("scripts/report.sh", "#!/bin/sh\n")
	r.commit("code")
	return r
}

func (r *repo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", r.root, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
	out, err := cmd.CombinedOutput()
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

// commit commits everything and returns the short hash.
func (r *repo) commit(message string) string {
	r.t.Helper()
	r.git("add", "-A")
	r.git("commit", "-q", "-m", message)
	return r.git("rev-parse", "--short", "HEAD")
}

// figures writes a README with a generated block and a chart, both
// measured at commit, and commits them, as report.sh and a commit would.
func (r *repo) figures(commit string) {
	r.t.Helper()
	line := Line(map[string]string{"machine-cpu": "Test CPU", "machine-cores": "2", "go-version": "go1.26.8",
		"date": "2026-01-02T03:04:05Z", "commit": commit, "command": "./scripts/compare.sh"})
	r.write("README.md", "# Title\n\n<!-- BEGIN GENERATED: stages -->\n| a |\n\n"+line+"\n<!-- END GENERATED: stages -->\n")
	r.write("docs/charts/time.svg", "<svg><text>"+line+"</text></svg>\n")
	r.commit("figures")
}

func (r *repo) check() *Report {
	r.t.Helper()
	rep, err := Check(r.root)
	if err != nil {
		r.t.Fatal(err)
	}
	return rep
}

// stale is the figures of rep that are stale, with why.
func stale(rep *Report) []string {
	var s []string
	for _, f := range rep.Figures {
		if f.Stale != "" {
			s = append(s, f.Where+": "+f.Stale)
		}
	}
	return s
}

func TestFreshFiguresPass(t *testing.T) {
	r := newRepo(t)
	r.figures(r.git("rev-parse", "--short", "HEAD"))
	// Prose, a script that only presents, and a module that is no stage
	// are not measured code.
	r.write("stage0-linear/README.md", "# Stage 0\n\nMore prose.\n")
	r.write("common/README.md", "# Common\n")
	r.write("scripts/report.sh", "#!/bin/sh\necho changed\n")
	r.write("workshop/quest/quest.go", "package quest // changed\n")
	r.commit("prose")
	rep := r.check()
	if !rep.OK() || len(rep.Figures) != 2 {
		t.Errorf("fresh figures: OK %v, figures %v, uncommitted %v", rep.OK(), rep.Figures, rep.Uncommitted)
	}
}

func TestStoreEditedAfterTheFigures(t *testing.T) {
	r := newRepo(t)
	measured := r.git("rev-parse", "--short", "HEAD")
	r.figures(measured)
	r.write("stage0-linear/store.go", "package main // faster\n")
	r.commit("faster")
	rep := r.check()
	want := "measured at " + measured + "; changed since: stage0-linear/store.go"
	if got := stale(rep); rep.OK() || len(got) != 2 || !strings.HasSuffix(got[0], want) || !strings.HasSuffix(got[1], want) {
		t.Errorf("after editing store.go: stale %q, want both figures %q", got, want)
	}
}

func TestHarnessEditedAfterTheFigures(t *testing.T) {
	r := newRepo(t)
	r.figures(r.git("rev-parse", "--short", "HEAD"))
	r.write("scripts/gctrace.sh", "#!/bin/sh\n# a script that measures, added later\n")
	r.write("scripts/internal/stageserver/server.go", "package stageserver\n")
	r.write("scripts/internal/stageserver/server_test.go", "package stageserver // tests measure nothing\n")
	r.commit("harness")
	got := stale(r.check())
	if len(got) != 2 || !strings.HasSuffix(got[0], "changed since: scripts/gctrace.sh, scripts/internal/stageserver/server.go") {
		t.Errorf("after changing the harness: stale %q", got)
	}
}

func TestUncommittedMeasuredCode(t *testing.T) {
	r := newRepo(t)
	r.figures(r.git("rev-parse", "--short", "HEAD"))
	r.write("common/bench/bench.go", "package bench\n")
	r.write("stage0-linear/README.md", "uncommitted prose is not measured\n")
	rep := r.check()
	if rep.OK() || !slices.Equal(rep.Uncommitted, []string{"common/bench/bench.go"}) {
		t.Errorf("uncommitted %q, OK %v; want common/bench/bench.go and not OK", rep.Uncommitted, rep.OK())
	}
	if commit, _ := Commit(r.root); !strings.HasSuffix(commit, " "+Uncommitted) {
		t.Errorf("Commit = %q, want it marked as uncommitted", commit)
	}
}

func TestFiguresWithoutACommit(t *testing.T) {
	r := newRepo(t)
	head := r.git("rev-parse", "--short", "HEAD")
	r.write("README.md", "<!-- BEGIN GENERATED: typed -->\n| 42µs |\n<!-- END GENERATED: typed -->\n"+
		"<!-- BEGIN GENERATED: dirty -->\ncommit `"+head+"` "+Uncommitted+"\n<!-- END GENERATED: dirty -->\n"+
		"<!-- BEGIN GENERATED: gone -->\ncommit `abcdef0`\n<!-- END GENERATED: gone -->\n"+
		"<!-- BEGIN GENERATED: open -->\n")
	r.commit("figures")
	got := stale(r.check())
	want := []string{
		"README.md, block typed: records no commit",
		"README.md, block dirty: measured at " + head + " " + Uncommitted + ": no commit holds that code",
		"README.md, block gone: records commit abcdef0, which this repository does not have",
		"README.md: <!-- BEGIN GENERATED: open --> has no <!-- END GENERATED: open -->",
	}
	if !slices.Equal(got, want) {
		t.Errorf("stale:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestCommitOfACleanTree(t *testing.T) {
	r := newRepo(t)
	r.write("README.md", "prose changes do not make a measurement uncommitted\n")
	got, err := Commit(r.root)
	if want := r.git("rev-parse", "--short", "HEAD"); err != nil || got != want {
		t.Errorf("Commit = %q, %v; want %q", got, err, want)
	}
}
