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
