package main

import (
	"strings"
	"testing"
)

func TestStagesTable(t *testing.T) {
	rs := readFixture(t)
	got := stagesTable(rs, func(stage string) string { return "change of " + stage })
	want := "| stage | change | time/op | speed-up vs previous | speed-up vs stage0-linear | allocs/op | through Echo |\n" +
		"|---|---|---:|---:|---:|---:|---:|\n" +
		"| [stage0-linear](stage0-linear/README.md) | change of stage0-linear | 200.0µs | — | — | 222 | 400.5µs |\n" +
		"| [stage1-index](stage1-index/README.md) | change of stage1-index | 50.00µs | 4.0x | 4.0x | 215 | 100.5µs |\n" +
		"| floor | change of floor | 100.0ns | — | — | 0 | 700.0ns |\n"
	if !strings.HasPrefix(got, want) {
		t.Errorf("table:\n%s\nwant it to start with:\n%s", got, want)
	}
	for _, line := range []string{"Median of 3 runs of `BenchmarkListByRole/users=10000/matches=100`",
		"Measured on Test CPU, 2 cores, go1.26.8, 2026-01-02T03:04:05Z, by `./scripts/compare.sh --rounds 3`."} {
		if !strings.Contains(got, line) {
			t.Errorf("table lacks %q:\n%s", line, got)
		}
	}
}

func TestStagesTableWithoutTheHeadline(t *testing.T) {
	rs := readFixture(t)
	rs.stages[1].samples = map[measurement][]float64{}
	got := stagesTable(rs, func(string) string { return "x" })
	if !strings.Contains(got, "| [stage1-index](stage1-index/README.md) | x | — | — | — | — | — |\n") {
		t.Errorf("a stage without results should have dashes:\n%s", got)
	}
	if !strings.Contains(got, "| floor | x | 100.0ns | — | — | 0 | 700.0ns |") {
		t.Errorf("the floor, which gets no speed-up:\n%s", got)
	}
}

func TestSpeedup(t *testing.T) {
	for r, want := range map[float64]string{1: "1.0x", 4.04: "4.0x", 9.96: "10.0x", 27.3: "27x", 16132.4: "16132x"} {
		if got := speedup(r); got != want {
			t.Errorf("speedup(%v) = %q, want %q", r, got, want)
		}
	}
}

func TestChartsAndLoadBlocks(t *testing.T) {
	rs := readFixture(t)
	charts := chartsBlock("docs/charts", []chart{{"time-per-stage.svg", "Time per stage"}}, rs)
	if !strings.HasPrefix(charts, "![Time per stage](docs/charts/time-per-stage.svg)\n") ||
		!strings.Contains(charts, "Measured on Test CPU") {
		t.Errorf("charts block:\n%s", charts)
	}
	load := loadBlock("| stage | p50 |\n|---|---:|\n| floor | 1ms |\n\n", rs)
	if load != "| stage | p50 |\n|---|---:|\n| floor | 1ms |\n\nMeasured on "+rs.machine()+".\n" {
		t.Errorf("load block:\n%s", load)
	}
}
