package figures

import (
	"strings"
	"testing"

	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/stages"
)

// mixedFile is a stage's BenchmarkMixed results: six samples a cell, time
// seconds at writes percent, the same with one client and with 16.
func mixedFile(name string, time func(writes int) float64) *results.File {
	samples := map[results.Measurement][]float64{}
	for _, c := range MixedClients {
		for _, w := range MixedWrites {
			for i := range 6 {
				v := time(w) * (1 + float64(2*i-5)/2000) // their median is time(w)
				m := results.Measurement{Bench: MixedBench(w, c), Unit: "sec/op"}
				samples[m] = append(samples[m], v)
			}
		}
	}
	return results.NewFile(name, nil, samples)
}

// The table has a row per stage and the crossovers name the first share of
// writes at which a step is no longer faster than the one before it.
func TestMixedTable(t *testing.T) {
	files := []*results.File{
		mixedFile("stage1-index", func(w int) float64 { return 100e-6 }),
		mixedFile("stage2-noclone", func(w int) float64 { return 50e-6 + float64(w)*10e-6 }), // faster up to 1%, slower from 10%
		mixedFile("stage3-parallel", func(w int) float64 { return 10e-6 }),                   // faster everywhere
		mixedFile("floor", func(w int) float64 { return 1e-6 }),                              // not a step
	}
	table := MixedTable(files, stages.IsStep)
	for _, want := range []string{
		"| stage2-noclone | 50.00µs | 60.00µs | 150.0µs | 550.0µs |",
		"the one before it, by wall time):", // the fixture has no CPU times
		"- stage2-noclone against stage1-index, one client: stops paying at 10% writes",
		"- stage3-parallel against stage2-noclone, one client: pays at every share measured",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("the table lacks %q:\n%s", want, table)
		}
	}
	if strings.Contains(table, "floor against") {
		t.Errorf("the floor, not a step, has a crossover:\n%s", table)
	}
}
