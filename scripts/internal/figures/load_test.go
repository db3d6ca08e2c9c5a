package figures

import (
	"strings"
	"testing"

	"example.com/userperf/scripts/internal/results"
)

// loadFile is a stage's one round of the fixed-rate test: p50 seconds, and errors failed reads.
func loadFile(name string, p50, errors float64) *results.File {
	return results.NewFile(name, nil, map[results.Measurement][]float64{
		{Bench: "HTTPFixedRate/rate=100/matches=100", Unit: "p50-sec"}: {p50},
		{Bench: "HTTPFixedRate/rate=100/matches=100", Unit: "errors"}:  {errors},
	})
}

// One round: the medians alone, and the errors as a table only where a read failed.
func TestLoadTablesOfOneRound(t *testing.T) {
	clean, err := LoadTables([]*results.File{loadFile("stage0-linear", 0.002, 0), loadFile("floor", 0.001, 0)}, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| p50-sec | HTTPFixedRate/rate=100/matches=100 |\n|---|---:|\n| stage0-linear | 2.000ms |\n| floor | 1.000ms |",
		"errors: no failed read in any test.", "medians alone"} {
		if !strings.Contains(clean, want) {
			t.Errorf("lacks %q:\n%s", want, clean)
		}
	}
	failing, _ := LoadTables([]*results.File{loadFile("stage0-linear", 0.002, 3), loadFile("floor", 0.001, 0)}, false)
	if !strings.Contains(failing, "| errors | HTTPFixedRate/rate=100/matches=100 |") || !strings.Contains(failing, "| stage0-linear | 3 |") {
		t.Errorf("a failed read, not in a table:\n%s", failing)
	}
	if strings.Contains(clean+failing, "±") {
		t.Errorf("an interval of one sample:\n%s\n%s", clean, failing)
	}
}

// Each step's p50 and p99 at the fixed rate are decided against the step before it, by the verdicts' rule;
// the floor, no step, gets none.
func TestLoadVerdicts(t *testing.T) {
	rounds := func(name string, k float64) *results.File {
		p := []float64{2e-3, 2.1e-3, 1.9e-3, 2.05e-3, 1.95e-3, 2e-3}
		samples := map[results.Measurement][]float64{}
		for _, unit := range []string{"p50-sec", "p99-sec"} {
			v := make([]float64, len(p))
			for i := range p {
				v[i] = p[i] * k
			}
			samples[results.Measurement{Bench: "HTTPFixedRate/rate=100/matches=100", Unit: unit}] = v
		}
		return results.NewFile(name, nil, samples)
	}
	got := LoadVerdicts([]*results.File{rounds("stage0-linear", 1), rounds("stage1-index", 0.5), rounds("stage2-noclone", 0.5), rounds("floor", 0.1)})
	for _, want := range []string{
		"- `HTTPFixedRate/rate=100/matches=100` stage1-index: 2.00x faster than stage0-linear in p50 latency: decided",
		"- `HTTPFixedRate/rate=100/matches=100` stage1-index: 2.00x faster than stage0-linear in p99 latency: decided",
		"- `HTTPFixedRate/rate=100/matches=100` stage2-noclone: alike within ±15% of stage1-index in p50 latency",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "floor") {
		t.Errorf("a verdict of the floor, no step:\n%s", got)
	}
}
