package main

import (
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	compare := readFixture(t)
	loadDir := t.TempDir()
	writeLoad(t, loadDir)
	load, err := readResultSet(loadDir)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	charts, err := makeCharts(dir, "svg", compare, load)
	if err != nil {
		t.Fatal(err)
	}
	if len(charts) != 4 {
		t.Fatalf("%d charts, want 4: %v", len(charts), charts)
	}
	file := func(name string) string { return filepath.Join(dir, name+".svg") }
	checkSVG(t, file("time-per-stage"), "stage0-linear", "stage1-index", "floor", "200.0µs", "50.00µs", "100.0ns", "1,000 matches")
	checkSVG(t, file("allocs-per-stage"), "222", "2033", "215")
	checkSVG(t, file("time-vs-users"), "stage0-linear", "floor", "100000")
	if data, _ := os.ReadFile(file("time-per-stage")); !strings.Contains(string(data), "Arial,Helvetica,sans-serif") {
		t.Error("the SVG names no fallback for the font it does not embed")
	}
	checkSVG(t, file("http-percentiles"), "p50", "p99", "1.500ms", "800.0µs", "100 matches at 100 requests/s", "1000 matches at 100 requests/s")
}

func TestMakeChartsWithoutLoad(t *testing.T) {
	charts, err := makeCharts(t.TempDir(), "svg", readFixture(t), nil)
	if err != nil || len(charts) != 3 {
		t.Errorf("without load results: %d charts, error %v; want 3", len(charts), err)
	}
}

func TestMakeChartsWithoutResults(t *testing.T) {
	rs := readFixture(t)
	for _, s := range rs.stages {
		s.samples = map[measurement][]float64{}
	}
	if _, err := makeCharts(t.TempDir(), "svg", rs, nil); err == nil {
		t.Error("no ListByRole results: no error")
	}
}

func TestTickSeconds(t *testing.T) {
	for sec, want := range map[float64]string{10: "10s", 1e-3: "1ms", 1e-4: "100µs", 2.5e-6: "2.5µs", 1e-8: "10ns"} {
		if got := tickSeconds(sec); got != want {
			t.Errorf("tickSeconds(%v) = %q, want %q", sec, got, want)
		}
	}
}
