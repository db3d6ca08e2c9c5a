package main

import (
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"example.com/userperf/scripts/internal/results"
)

// checkSVG fails unless file is well-formed XML whose text includes every
// one of want.
func checkSVG(t *testing.T, file string, want ...string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	d := xml.NewDecoder(strings.NewReader(string(data)))
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: not well-formed SVG: %v", file, err)
		}
		if c, ok := tok.(xml.CharData); ok {
			text.Write(c)
			text.WriteByte('\n')
		}
	}
	for _, w := range want {
		if !strings.Contains(text.String(), w) {
			t.Errorf("%s does not show %q", filepath.Base(file), w)
		}
	}
}

func TestMakeCharts(t *testing.T) {
	compare := readFixture(t, false)
	loadDir := t.TempDir()
	writeLoad(t, loadDir)
	dir := t.TempDir()
	charts, err := makeCharts(dir, "svg", compare, readDir(t, loadDir))
	if err != nil {
		t.Fatal(err)
	}
	if len(charts) != 4 {
		t.Fatalf("%d charts, want 4: %v", len(charts), charts)
	}
	file := func(name string) string { return filepath.Join(dir, name+".svg") }
	footer := "Measured on Test CPU (2 cores), go1.26.8, 2026-01-02T03:04Z, commit `8899ddb`,"
	checkSVG(t, file("time-per-stage"), "stage0", "linear", "floor", "200.0µs", "50.00µs", "100.0ns", "1,000 matches",
		footer, "by `./scripts/compare.sh --rounds 3`.")
	checkSVG(t, file("allocs-per-stage"), "222", "2033", "215", footer)
	checkSVG(t, file("time-vs-users"), "stage0-linear", "floor", "100000", footer)
	if data, _ := os.ReadFile(file("time-per-stage")); !strings.Contains(string(data), "Arial,Helvetica,sans-serif") {
		t.Error("the SVG names no fallback for the font it does not embed")
	}
	checkSVG(t, file("http-percentiles"), "p50", "p99", "1.500ms", "800.0µs", "100 matches at 100 requests/s",
		"1000 matches at 100 requests/s", footer, "by `./scripts/load.sh --quick`.")
	if _, err := os.Stat(file("writes-and-memory")); err == nil {
		t.Error("a chart of writes without write results")
	}
}

func TestMakeChartsOfWritesAndMemory(t *testing.T) {
	dir := t.TempDir()
	charts, err := makeCharts(dir, "svg", readFixture(t, true), nil)
	if err != nil || len(charts) != 4 || charts[3].file != "writes-and-memory.svg" {
		t.Fatalf("charts %v, error %v; want the three of compare and writes-and-memory", charts, err)
	}
	checkSVG(t, filepath.Join(dir, "writes-and-memory.svg"), "Time of one Add and one Delete", "3.000µs", "9.000µs",
		"Heap held per user", "700.0B", "1.465KiB", "commit `8899ddb`")
}

func TestMakeChartsWithoutLoad(t *testing.T) {
	charts, err := makeCharts(t.TempDir(), "svg", readFixture(t, false), nil)
	if err != nil || len(charts) != 3 {
		t.Errorf("without load results: %d charts, error %v; want 3", len(charts), err)
	}
}

func TestMakeChartsWithoutResults(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "stage0-linear.txt"), header+"BenchmarkOther-2 1 1 ns/op\n")
	if _, err := makeCharts(t.TempDir(), "svg", readDir(t, dir), nil); err == nil {
		t.Error("no ListByRole results: no error")
	}
}

func TestFooterLines(t *testing.T) {
	footer := "Measured on X, commit `abc1234`, by `./scripts/compare.sh --rounds 6 stage0-linear`."
	wide := func(string) bool { return true }
	if got, want := footerLines(footer, wide), []string{"Measured on X, commit `abc1234`,", "by `./scripts/compare.sh --rounds 6 stage0-linear`."}; !slices.Equal(got, want) {
		t.Errorf("footerLines = %q, want %q", got, want)
	}
	narrow := func(line string) bool { return len(line) <= 26 }
	want := []string{"Measured on X, commit `abc1234`,", "by `./scripts/compare.sh", "--rounds 6 stage0-linear`."}
	if got := footerLines(footer, narrow); !slices.Equal(got, want) {
		t.Errorf("footerLines, narrow = %q, want %q", got, want)
	}
}

func TestLogTicks(t *testing.T) {
	var labels []string
	for _, tick := range (logTicks{results.Duration}).Ticks(1e-8, 0.2) {
		if tick.Label != "" {
			labels = append(labels, tick.Label)
		}
	}
	if want := []string{"10ns", "100ns", "1µs", "10µs", "100µs", "1ms", "10ms", "100ms", "1s"}; !slices.Equal(labels, want) {
		t.Errorf("labels %q, want %q", labels, want)
	}
}
