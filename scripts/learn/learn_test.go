package main

import (
	"slices"
	"testing"
)

func TestParsePrediction(t *testing.T) {
	for _, c := range []struct {
		ask, p string
		want   float64
		ok     bool
	}{
		{"x", "3x", 3, true}, {"x", "0.8x", 0.8, true}, {"x", "3", 0, false}, {"x", "fast", 0, false},
		{"allocs/op", "40", 40, true}, {"allocs/op", "40 allocs/op", 40, true}, {"allocs/op", "4x", 0, false},
		{"held-B/user", "2KiB", 2048, true}, {"held-B/user", "1.5 KB", 1500, true}, {"held-B/user", "0", 0, false},
	} {
		got, err := parsePrediction(c.ask, c.p)
		if (err == nil) != c.ok || c.ok && got != c.want {
			t.Errorf("parsePrediction(%q, %q) = %v, %v; want %v (ok %v)", c.ask, c.p, got, err, c.want, c.ok)
		}
	}
}

func TestJudge(t *testing.T) {
	for _, c := range []struct {
		ask         string
		m           measurement
		within, dir bool
	}{
		{"x", measurement{Predicted: "3x", Value: 2}, true, true},
		{"x", measurement{Predicted: "5x", Value: 2}, false, true},
		{"x", measurement{Predicted: "2x", Value: 0.9}, false, false},
		{"held-B/user", measurement{Predicted: "600", Value: 1000, Base: 300}, true, true},
		{"held-B/user", measurement{Predicted: "200", Value: 1000, Base: 300}, false, false},
	} {
		within, dir, ok := judge(c.ask, c.m)
		if !ok || within != c.within || dir != c.dir {
			t.Errorf("judge(%q, %+v) = %v, %v, %v; want %v, %v", c.ask, c.m, within, dir, ok, c.within, c.dir)
		}
	}
	if _, _, ok := judge("text", measurement{Predicted: "fast", Value: 2}); ok {
		t.Error("a prediction in words is judged")
	}
}

func TestWords(t *testing.T) {
	got, err := words(`USERPERF_MILLION=1 go run ./scripts/compare --bench '^BenchmarkX$/^a=(1|2)$' "two words" s`)
	want := []string{"USERPERF_MILLION=1", "go", "run", "./scripts/compare", "--bench", "^BenchmarkX$/^a=(1|2)$", "two words", "s"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("words = %q, %v; want %q", got, err, want)
	}
	if _, err := words(`go test '-run`); err == nil {
		t.Error("an unclosed quote is no error")
	}
}

// TestExercisesHaveHints reads WORKSHOP.md: every exercise that starts from a stage has its hints.
func TestExercisesHaveHints(t *testing.T) {
	list := exercises("../..")
	if len(list) < 5 {
		t.Fatalf("%d exercises with hints in WORKSHOP.md, want at least the five exercises", len(list))
	}
	for _, e := range list[:5] {
		if e.from == "" || len(e.hints) < 2 {
			t.Errorf("exercise %s (%s): starts from %q, %d hints", e.number, e.title, e.from, len(e.hints))
		}
	}
}
