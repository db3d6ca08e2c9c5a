package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// about is what the tables say of a fixture stage: a change, and a chapter
// for every stage but the floor.
func about(stage string) (change, chapter string) {
	if stage == "floor" {
		return "change of floor", ""
	}
	return "change of " + stage, stage + "/README.md"
}

// noDiff stands for diffSize in the table's tests: the pair it was asked
// about, so that a test sees which pairs get a diff.
func noDiff(previous, stage string) string { return previous + ".." + stage }

func TestStagesTable(t *testing.T) {
	got := stagesTable(readFixture(t, false), about, noDiff)
	want := "| stage | change | diff | time/op | speed-up vs previous | speed-up vs stage0-linear | allocs/op | through Echo |\n" +
		"|---|---|---:|---:|---:|---:|---:|---:|\n" +
		"| [stage0-linear](stage0-linear/README.md) | change of stage0-linear | — | 200.0µs | — | — | 222 | 400.5µs |\n" +
		"| [stage1-index](stage1-index/README.md) | change of stage1-index | stage0-linear..stage1-index | 50.00µs | 4.0x | 4.0x | 215 | 100.5µs |\n" +
		"| floor | change of floor | — | 100.0ns | — | — | 0 | 700.0ns |\n"
	if !strings.HasPrefix(got, want) {
		t.Errorf("table:\n%s\nwant it to start with:\n%s", got, want)
	}
	mustContain(t, got, "Median of 3 runs of `BenchmarkListByRole/users=10000/matches=100`", "\n"+fixtureLine+"\n")
	if strings.Contains(got, "write") || strings.Contains(got, "held") {
		t.Errorf("results without writes, but the table has their columns:\n%s", got)
	}
}

func TestStagesTableWithWritesAndMemory(t *testing.T) {
	mustContain(t, stagesTable(readFixture(t, true), about, noDiff),
		"| allocs/op | through Echo | write | held/user |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
		"| 222 | 400.5µs | 3.000µs | 700.0B |\n",
		"| 215 | 100.5µs | 9.000µs | 1.465KiB |\n",
		"| floor | change of floor | — | 100.0ns | — | — | 0 | 700.0ns | — | — |\n",
		"Write: the median of `BenchmarkWrite/users=10000/roles=3`",
		"(`held-B/user` of `BenchmarkBuild/users=10000`)")
}

func TestStagesTableWithALearnersStage(t *testing.T) {
	dir := t.TempDir()
	writeCompare(t, dir)
	mine, _ := os.ReadFile(filepath.Join(dir, "stage1-index.txt"))
	writeFile(t, filepath.Join(dir, "mystage.txt"), strings.ReplaceAll(string(mine), "BenchmarkListByRole/users=10000/matches=100-2 \t 1000\t ", "BenchmarkListByRole/users=10000/matches=100-2 \t 1000\t 1"))
	writeFile(t, filepath.Join(dir, "stage2-next.txt"), string(mine))
	// A step is compared with the step before it, a learner's stage with the first only.
	mustContain(t, stagesTable(readDir(t, dir), about, noDiff),
		"| [stage2-next](stage2-next/README.md) | change of stage2-next | stage1-index..stage2-next | 50.00µs | 1.0x | 4.0x |",
		"| [mystage](mystage/README.md) | change of mystage | — | 150.0µs | — | 1.3x |")
}

func TestStagesTableWithoutTheHeadline(t *testing.T) {
	dir := t.TempDir()
	writeCompare(t, dir)
	writeFile(t, filepath.Join(dir, "stage1-index.txt"), header+"BenchmarkOther-2 1 1 ns/op\n")
	got := stagesTable(readDir(t, dir), func(string) (string, string) { return "x", "" }, noDiff)
	if !strings.Contains(got, "| stage1-index | x | stage0-linear..stage1-index | — | — | — | — | — |\n") {
		t.Errorf("a stage without results should have dashes:\n%s", got)
	}
	if !strings.Contains(got, "| floor | x | — | 100.0ns | — | — | 0 | 700.0ns |") {
		t.Errorf("the floor, which gets no speed-up:\n%s", got)
	}
}

func TestSpeedup(t *testing.T) {
	for r, want := range map[float64]string{0.033: "0.03x", 0.25: "0.25x", 1: "1.0x", 4.04: "4.0x", 9.96: "10.0x", 27.3: "27x", 16132.4: "16132x"} {
		if got := speedup(r); got != want {
			t.Errorf("speedup(%v) = %q, want %q", r, got, want)
		}
	}
}

func TestChartsAndLoadBlocks(t *testing.T) {
	compare := readFixture(t, false)
	loadDir := t.TempDir()
	writeLoad(t, loadDir)
	load := readDir(t, loadDir)
	charts := chartsBlock("docs/charts", []chart{{"time-per-stage.svg", "Time per stage", false}}, compare, nil)
	if charts != "![Time per stage](docs/charts/time-per-stage.svg)\n\n"+fixtureLine+"\n" {
		t.Errorf("charts block:\n%s", charts)
	}
	charts = chartsBlock("docs/charts", []chart{{"t.svg", "T", false}, {"http.svg", "HTTP", true}}, compare, load)
	if !strings.Contains(charts, "Benchmarks: "+fixtureLine) || !strings.Contains(charts, "HTTP: Measured on") ||
		!strings.Contains(charts, "by `./scripts/load.sh --quick`") {
		t.Errorf("charts block with the load chart does not cite both commands:\n%s", charts)
	}
	block := loadBlock("| stage | p50 |\n|---|---:|\n| floor | 1ms |\n\n", load)
	if !strings.HasPrefix(block, "| stage | p50 |\n|---|---:|\n| floor | 1ms |\n\nMeasured on ") || !strings.Contains(block, "load.sh --quick") {
		t.Errorf("load block:\n%s", block)
	}
}
