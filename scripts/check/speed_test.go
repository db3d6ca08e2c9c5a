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

func TestValidPrediction(t *testing.T) {
	for p, want := range map[string]bool{"3x": true, "1.5x": true, "0.8x": true, "3": false, "x": false, "0x": false, "-2x": false, "2 x": false, "1e2x": false} {
		if validPrediction(p) != want {
			t.Errorf("validPrediction(%q) = %v", p, !want)
		}
	}
}

// Exercise 5's wrong turn, a copy of each user's JSON per role, holds several times the
// reference's heap and reads no faster: it fails, naming the cause. Blocks that pay for the
// same memory with faster reads pass with a note; a stage within heldFactor passes silently.
func TestHeldVerdict(t *testing.T) {
	for _, c := range []struct {
		mine, ref    float64
		faster       bool
		fails, notes bool
	}{
		{1100, 314, false, true, false}, // one encoding per role
		{1013, 314, true, false, true},  // stage 6's blocks: a copy per role, for faster reads
		{330, 314, false, false, false}, // one encoding per user
		{1.9 * 314, 314, false, false, false},
		{2.1 * 314, 314, false, true, false},
	} {
		failure, note := heldVerdict("ex5", "stage5-materialized", c.mine, c.ref, c.faster)
		if (failure != "") != c.fails || (note != "") != c.notes {
			t.Errorf("heldVerdict(%v against %v, faster reads %v) = %q, %q", c.mine, c.ref, c.faster, failure, note)
		}
		if c.fails && (!strings.Contains(failure, "bytes per user") || !strings.Contains(failure, "copy of each user's JSON per role")) {
			t.Errorf("the failure does not name the cause: %s", failure)
		}
	}
	if !heldQuestions["stage4-append"] {
		t.Error("exercise 5, from stage4-append, does not weigh the heap held per user")
	}
}
