package harness

import (
	"slices"
	"testing"
)

// TestQuickestKeepsEachBenchmarksLeastCPUTime checks the choice of a
// sample among its tries: by CPU time where a line has it (the second
// try, although its wall time is the longest), else by wall time, with
// the configuration lines kept once and the benchmarks in their order.
func TestQuickestKeepsEachBenchmarksLeastCPUTime(t *testing.T) {
	lines := []string{
		"goos: linux\n",
		"BenchmarkA-2 100 300 ns/op 290 cpu-ns/op 12 B/op\n",
		"BenchmarkB-2 10 900 ns/op\n",
		"goos: linux\n",
		"BenchmarkA-2 100 500 ns/op 250 cpu-ns/op 14 B/op\n",
		"BenchmarkB-2 10 800 ns/op\n",
		"BenchmarkA-2 100 280 ns/op 270 cpu-ns/op 12 B/op\n",
		"BenchmarkB-2 10 850 ns/op\n",
	}
	want := []string{
		"goos: linux\n",
		"BenchmarkA-2 100 500 ns/op 250 cpu-ns/op 14 B/op\n",
		"BenchmarkB-2 10 800 ns/op\n",
	}
	if got := quickest(lines); !slices.Equal(got, want) {
		t.Errorf("quickest:\n%q\nwant\n%q", got, want)
	}
}
