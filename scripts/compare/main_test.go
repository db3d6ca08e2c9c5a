package main

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"example.com/userperf/scripts/internal/results"
)

func TestParseToolchains(t *testing.T) {
	for value, want := range map[string][]string{
		"":                            nil,
		"go1.26.8,go1.27.3":           {"go1.26.8", "go1.27.3"},
		"go1.27.3,go1.26.8,go1.28rc1": {"go1.27.3", "go1.26.8", "go1.28rc1"},
	} {
		if got, err := parseToolchains(value); err != nil || !slices.Equal(got, want) {
			t.Errorf("--go %q = %q, %v; want %q", value, got, err, want)
		}
	}
	for value, says := range map[string]string{
		"1.27.3,go1.26.8":   `"1.27.3" is not a Go release`,
		"go1.26.8 go1.27.3": `"go1.26.8 go1.27.3" is not a Go release`,
		"go1.26.8,":         `"" is not a Go release`,
		"go1.26.8,go1.27":   "go1.27 is a language version, not a release: name one, such as go1.27.0",
		"go1.27.3,go1.27.3": "go1.27.3 is named twice",
		"go1.27.3":          "for one, run GOTOOLCHAIN=go1.27.3 go run ./scripts/compare",
	} {
		if got, err := parseToolchains(value); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("--go %q = %q, %v; want an error that says %q", value, got, err, says)
		}
	}
}

// TestToolchainVerdict checks that a release's verdict is one line, in the words of every verdict, naming both releases.
func TestToolchainVerdict(t *testing.T) {
	slower := results.Comparison{UnitName: "CPU time", Ratio: 1 / 1.2, Lo: 1 / 1.25, Hi: 1 / 1.15, AA: true, Noise: results.Interval{Ratio: 1.03}, Decided: true}
	got := toolchainVerdict(slower, "go1.27.3", "go1.26.8")
	if want := "go1.27.3 vs go1.26.8: 1.20x slower than go1.26.8 in CPU time: decided"; !strings.HasPrefix(got, want) || strings.Contains(got, "\n") {
		t.Errorf("toolchainVerdict = %q, want one line starting %q", got, want)
	}
}

// TestSaid checks that compare prints every line of a verdict, the first within 160 characters, indented under the stage's name.
func TestSaid(t *testing.T) {
	c := results.Comparison{UnitName: "CPU time", Ratio: 1.04, Lo: 0.81, Hi: 1.32, AA: true, Noise: results.Interval{Ratio: 1.2, Lo: 0.9, Hi: 1.4}, Samples: [2]int{6, 6},
		Spreads: [2]string{"±55% unstable", "±4% reliable"},
		Counts:  []results.Count{{Unit: "allocs/op", Ratio: 1.96, Exact: true, Decided: true}, {Unit: "B/op", Ratio: 1.2, Lo: 1.1, Hi: 1.3, Band: 0.05, Decided: true}}}
	verdict := c.Verdict("stage5-materialized")
	lines := strings.Split(said("quest6-cache-fixed", verdict), "\n")
	if lines[0] != "  quest6-cache-fixed:" || lines[1] != "    "+results.FirstLine(verdict) || len(lines) != strings.Count(verdict, "\n")+3 {
		t.Fatalf("said = %q", lines)
	}
	if n := utf8.RuneCountInString(lines[1]); n > 160 {
		t.Errorf("the verdict's first line as printed has %d characters: %q", n, lines[1])
	}
}
