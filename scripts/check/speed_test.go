package main

import (
	"regexp"
	"strings"
	"testing"
)

// The pattern of a row runs that row alone, level by level, as go test matches -bench.
func TestPatternRunsOneRow(t *testing.T) {
	rows := []string{"ListByRole/users=10000/matches=100", "ListByRole/users=100000/matches=100", "ListByRole/users=10000/matches=1000",
		"ListByRole/users=1000/matches=100", "ServeHTTP/users=10000/matches=100"}
	for _, row := range rows {
		levels := strings.Split(pattern(row), "/")
		for _, other := range rows {
			names := strings.Split("Benchmark"+other, "/")
			matched := true
			for i, level := range levels {
				matched = matched && regexp.MustCompile(level).MatchString(names[i])
			}
			if matched != (other == row) {
				t.Errorf("pattern(%s) = %s matches %s: %v", row, pattern(row), other, matched)
			}
		}
	}
}

// Exercise 1 asks where an index shows; a stage that starts no exercise is asked the headline's row.
func TestQuestion(t *testing.T) {
	if got := question("stage0-linear"); got != "ListByRole/users=100000/matches=100" {
		t.Errorf("question(stage0-linear) = %s", got)
	}
	if got := question("workshop/quest6-cache"); got != "ListByRole/users=10000/matches=100" {
		t.Errorf("question(workshop/quest6-cache) = %s", got)
	}
}

func TestValidPrediction(t *testing.T) {
	for p, want := range map[string]bool{"3x": true, "1.5x": true, "0.8x": true, "3": false, "x": false, "0x": false, "-2x": false, "2 x": false, "1e2x": false} {
		if validPrediction(p) != want {
			t.Errorf("validPrediction(%q) = %v", p, !want)
		}
	}
}
