package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const readme = `# Title

<!-- BEGIN GENERATED: stages -->
old table
<!-- END GENERATED: stages -->

Prose the script must not touch.
<!-- BEGIN GENERATED: charts -->
<!-- END GENERATED: charts -->
`

func TestReplaceBlock(t *testing.T) {
	got, err := replaceBlock(readme, "stages", "new table\n")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(readme, "old table\n", "new table\n", 1)
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	again, _ := replaceBlock(got, "stages", "new table\n")
	if again != got {
		t.Error("replacing a block twice with the same text changed the file")
	}
	empty, _ := replaceBlock(readme, "charts", "![chart](c.svg)\n")
	if !strings.Contains(empty, "<!-- BEGIN GENERATED: charts -->\n![chart](c.svg)\n<!-- END GENERATED: charts -->") {
		t.Errorf("an empty block was not filled:\n%s", empty)
	}
}

func TestReplaceBlockWantsItsMarkers(t *testing.T) {
	for name, d := range map[string]string{
		"missing":   "# Title\n",
		"no end":    "<!-- BEGIN GENERATED: stages -->\n",
		"reversed":  "<!-- END GENERATED: stages -->\n<!-- BEGIN GENERATED: stages -->\n",
		"twice":     readme + readme,
		"other one": "<!-- BEGIN GENERATED: load -->\n<!-- END GENERATED: load -->\n",
	} {
		if _, err := replaceBlock(d, "stages", "x\n"); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestUpdateFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "README.md")
	writeFile(t, path, readme)
	err := updateFile(path, block{"stages", "new table\n"}, block{"load", "never written\n"})
	if err == nil || !strings.Contains(err.Error(), "load") {
		t.Errorf("missing load markers: error %v", err)
	}
	got, _ := os.ReadFile(path)
	if !strings.Contains(string(got), "\nnew table\n") || !strings.Contains(string(got), "Prose the script must not touch.") {
		t.Errorf("the stages block was not replaced, or more was:\n%s", got)
	}
}

func TestDescribe(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "stage1-index", "README.md"), "# Stage 1: a role index\n\ntext\n")
	writeFile(t, filepath.Join(root, "stage1-index", "main.go"), "// Command stage1-index is ignored: the README wins.\npackage main\n")
	writeFile(t, filepath.Join(root, "stage9-new", "main.go"), "// Command stage9-new serves from a cache: details.\npackage main\n")
	writeFile(t, filepath.Join(root, "common", "floor", "floor.go"), "// Package floor is the limit of the path: more. And more.\npackage floor\n")
	writeFile(t, filepath.Join(root, "common", "floor", "floor_test.go"), "// Package floor is not this.\npackage floor\n")
	for stage, want := range map[string]string{
		"stage1-index": "a role index",
		"stage9-new":   "serves from a cache",
		"floor":        "the limit of the path",
		"stage7-gone":  "",
	} {
		if got := describe(root, stage); got != want {
			t.Errorf("describe(%s) = %q, want %q", stage, got, want)
		}
	}
}

// fakeBenchstat records its calls and answers like benchstat, with the
// configuration lines that the block leaves out.
type fakeBenchstat struct{ calls [][]string }

func (f *fakeBenchstat) run(args ...string) (string, error) {
	f.calls = append(f.calls, args)
	return "goos: linux\ncpu: Test CPU   \n        │ a │ b │   \nrow  1  2  \n\n", nil
}

func TestBenchstatBlock(t *testing.T) {
	rs := readFixture(t)
	rs.stages = append(rs.stages[:2], &stageResult{name: "stage2-noclone", file: "s2.txt"}, rs.stages[2])
	var f fakeBenchstat
	got, err := benchstatBlock(rs, 2, f.run)
	if err != nil {
		t.Fatal(err)
	}
	filter := []string{"-ignore", "pkg", "-filter", ".unit:(sec/op OR allocs/op)"}
	wantCalls := [][]string{
		append(slices.Clone(filter), "stage1-index="+rs.stages[1].file, "stage2-noclone=s2.txt"),
		append(slices.Clone(filter), "stage0-linear="+rs.stages[0].file, "stage2-noclone=s2.txt"),
	}
	if !slices.EqualFunc(f.calls, wantCalls, slices.Equal) {
		t.Errorf("benchstat calls\n%q\nwant\n%q", f.calls, wantCalls)
	}
	for _, want := range []string{
		"stage2-noclone against stage1-index:\n\n```\n        │ a │ b │\nrow  1  2\n```\n",
		"stage2-noclone against stage0-linear:",
		"`go tool benchstat -ignore pkg -filter '.unit:(sec/op OR allocs/op)' stage0-linear=",
		"Measured on Test CPU, 2 cores",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("block lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "goos:") {
		t.Errorf("block keeps benchstat's configuration lines:\n%s", got)
	}
}

func TestBenchstatBlockOfTheFirstStages(t *testing.T) {
	rs := readFixture(t)
	var f fakeBenchstat
	if _, err := benchstatBlock(rs, 0, f.run); err != nil || len(f.calls) != 1 || len(f.calls[0]) != 5 {
		t.Errorf("stage0: calls %q, error %v; want one call with stage0 alone", f.calls, err)
	}
	f.calls = nil
	if _, err := benchstatBlock(rs, 1, f.run); err != nil || len(f.calls) != 1 {
		t.Errorf("stage1: calls %q, error %v; want one call: its previous stage is stage0", f.calls, err)
	}
}
