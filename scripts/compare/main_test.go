package main

import (
	"slices"
	"strings"
	"testing"

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

func TestToolchainVerdict(t *testing.T) {
	for _, c := range []struct {
		comparison results.Comparison
		want       string
	}{
		{results.Comparison{UnitName: "CPU time", Ratio: 1 / 1.2, Floor: 0.03, Decided: true}, "go1.27.3 vs go1.26.8: 20% slower (CPU time, floor ±3%)"},
		{results.Comparison{UnitName: "CPU time", Ratio: 1 / 0.75, Floor: 0.1, Decided: true}, "go1.27.3 vs go1.26.8: 25% faster (CPU time, floor ±10%)"},
		{results.Comparison{UnitName: "wall time", Ratio: 1 / 1.2, Floor: 0.25}, "go1.27.3 vs go1.26.8: cannot tell on this machine (wall time, floor ±25%)"},
	} {
		if got := toolchainVerdict(c.comparison, "go1.27.3", "go1.26.8"); got != c.want {
			t.Errorf("%+v: %q, want %q", c.comparison, got, c.want)
		}
	}
}
