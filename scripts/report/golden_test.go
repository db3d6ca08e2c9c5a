package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"example.com/userperf/scripts/internal/golden"
	"example.com/userperf/scripts/internal/results"
)

// millionRun writes a run of compare with the million-user data set, at stamp: stage0-linear's time
// grows with the users, a thousandfold; stage1-index's does not, within a spread of a tenth.
func millionRun(t *testing.T, root, stamp string) string {
	dir := filepath.Join(root, "results", "compare", stamp)
	for stage, grows := range map[string]bool{"stage0-linear": true, "stage1-index": false} {
		var b strings.Builder
		b.WriteString(header + "command: USERPERF_MILLION=1 go run ./scripts/compare --bench ^BenchmarkListByRole$\n")
		for _, factor := range []float64{1.1, 1, 0.9, 1.05, 0.95, 1} {
			for _, users := range []int{1000, 1000000} {
				ns := 50_000 * factor
				if grows {
					ns *= float64(users) / 1000
				}
				fmt.Fprintf(&b, "BenchmarkListByRole/users=%d/matches=100-2 1 %.0f ns/op %.0f cpu-ns/op\n", users, ns, ns/2)
			}
		}
		write(t, filepath.Join(dir, stage+".txt"), b.String())
	}
	return dir
}

// TestGolden compares every block that report writes from the fixture's results with its golden file.
func TestGolden(t *testing.T) {
	root := repository(t)
	withLoad(t, root, 1)
	mixedRun(t, root, "20260104T000000Z")
	page := filepath.Join(root, "docs", "results.md")
	write(t, page, read(t, page)+block("mixed"))
	if _, err := generate(root); err != nil {
		t.Fatal(err)
	}
	for page, blocks := range map[string][]string{
		"results":       {"stages", "charts", "load", "mixed"},
		"stage0-linear": {"benchstat"},
		"stage1-index":  {"benchstat", "profile"},
	} {
		for _, b := range blocks {
			golden.Check(t, page+"."+b, generated(t, filepath.Join(root, "docs", page+".md"), b))
		}
	}
	withLoad(t, root, 6)
	tables, err := loadBlock(mustReadDir(t, filepath.Join(root, "results", "load", "20260102T030405Z")))
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "load.six-rounds", tables)
	million := millionRun(t, root, "20260105T000000Z")
	write(t, page, read(t, page)+block("million"))
	if err := growthBlock(root, million, filepath.Join("docs", "results.md")); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "results.million", generated(t, page, "million"))
	chapter, err := chapterTables(filepath.Join(root, "results", "compare", "20260102T030405Z"), "stage1-index")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "chapter.stage1-index", chapter)
	for path, command := range map[string]string{timings[0]: "go run ./scripts/test", timings[1]: "go run ./scripts/compare"} {
		if err := results.WriteWall(filepath.Join(root, path), header+"command: "+command+"\n", 9*time.Minute+5*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	write(t, page, read(t, page)+block("timings"))
	if err := timingsBlock(root, filepath.Join("docs", "results.md"), timings); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "results.timings", generated(t, page, "timings"))

	rehearsal := filepath.Join(root, "results", "rehearsal")
	for i, name := range []string{"prepare", "ex1-alone", "ex1-together", "ex2-alone", "ex2-together", "ex3-alone", "ex3-together",
		"ex4-alone", "ex4-together", "ex5-alone", "ex5-together"} {
		if err := results.WriteWall(filepath.Join(rehearsal, name+".txt"), header+"command: go run ./scripts/check --rehearse\n", time.Duration(40+i)*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	workshop := filepath.Join(root, "WORKSHOP.md")
	write(t, workshop, block("rehearsal"))
	if err := rehearsalBlock(root, "WORKSHOP.md", filepath.Join("results", "rehearsal")); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "workshop.rehearsal", generated(t, workshop, "rehearsal"))
}

func mustReadDir(t *testing.T, dir string) []*results.File {
	t.Helper()
	files, err := results.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return files
}
