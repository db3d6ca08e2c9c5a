package figures

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"example.com/userperf/common/bench"
	"example.com/userperf/scripts/internal/golden"
	"example.com/userperf/scripts/internal/results"
)

// mixedFile is a stage's BenchmarkMixed results: six samples a cell, whose
// median is time(writes, clients) seconds.
func mixedFile(name string, time func(writes, clients int) float64) *results.File {
	samples := map[results.Measurement][]float64{}
	for _, c := range bench.MixedClients {
		for _, w := range bench.MixedWrites {
			for i := range 6 {
				m := results.Measurement{Bench: MixedBench(w, c), Unit: "sec/op"}
				samples[m] = append(samples[m], time(w, c)*(1+float64(2*i-5)/2000))
			}
		}
	}
	return results.NewFile(name, nil, samples)
}

// Each step's crossover against the one before, with one client and with
// 16: stage 2 is faster up to 1% writes with one client and up to 0% with
// 16; stage 3 everywhere; stage 4 nowhere; the floor is not a step.
func mixedFiles() []*results.File {
	return []*results.File{
		mixedFile("stage1-index", func(w, c int) float64 { return 100e-6 }),
		mixedFile("stage2-noclone", func(w, c int) float64 { return 50e-6 + float64(w*c)*10e-6 }),
		mixedFile("stage3-parallel", func(w, c int) float64 { return 10e-6 }),
		mixedFile("stage4-append", func(w, c int) float64 { return 20e-6 }),
		mixedFile("floor", func(w, c int) float64 { return 1e-6 }),
	}
}

func TestMixedTable(t *testing.T) {
	table := MixedTable(mixedFiles())
	golden.Check(t, "mixed", table)
	for _, want := range []string{
		"the one before it, by wall time; ringed on the chart):", // the fixture has no CPU times
		"- stage2-noclone against stage1-index, one client: stops paying at 10% writes\n",
		"- stage3-parallel against stage2-noclone, one client: pays at every share measured\n",
		"- stage4-append against stage3-parallel, one client: does not pay even without writes\n",
		"- stage2-noclone against stage1-index, 16 clients: stops paying at 1% writes\n",
		"- stage3-parallel against stage2-noclone, 16 clients: pays at every share measured\n",
		"- stage4-append against stage3-parallel, 16 clients: does not pay even without writes\n",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("the table lacks %q:\n%s", want, table)
		}
	}
	if strings.Contains(table, "floor against") {
		t.Errorf("the floor, not a step, has a crossover:\n%s", table)
	}
}

// The chart rings each step where the table says it stops paying: at the
// index of that share of writes, on the panel of its client count.
func TestMixedChartRings(t *testing.T) {
	chart := MixedChart(mixedFiles())
	for i, at := range [][]int{{2, -1, 0}, {1, -1, 0}} {
		want := []crossover{{"stage2-noclone", "stage1-index", at[0]}, {"stage3-parallel", "stage2-noclone", at[1]}, {"stage4-append", "stage3-parallel", at[2]}}
		if got := chart.panels[i].rings; !slices.Equal(got, want) {
			t.Errorf("panel %q rings %v, want %v", chart.panels[i].title, got, want)
		}
	}
	dir := t.TempDir()
	if drawn, err := chart.Save(dir); !drawn || err != nil {
		t.Fatalf("Save: %v, %v", drawn, err)
	}
	svg, err := os.ReadFile(filepath.Join(dir, "mixed.svg"))
	if err != nil || !strings.Contains(string(svg), "where a step stops paying") {
		t.Errorf("the chart's legend does not say what a ring means (%v)", err)
	}
}
