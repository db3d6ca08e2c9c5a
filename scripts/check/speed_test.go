package main

import (
	"errors"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/testevents"
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

// Exercise 5's wrong turns, a copy of each user's JSON per role or one arena for every user, hold
// several times the reference's heap and read no faster: they fail, naming the causes the heap
// cannot tell apart. Blocks that pay for the
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
		for _, cause := range []string{"bytes per user", "a copy of each user's JSON per role", "one arena", "spare capacity"} {
			if c.fails && !strings.Contains(failure, cause) {
				t.Errorf("the failure does not name %q among the causes: %s", cause, failure)
			}
		}
	}
	if !heldQuestions["stage4-append"] {
		t.Error("exercise 5, from stage4-append, does not weigh the heap held per user")
	}
}

// A stage's own failed test comes first in the summary; a shared suite's, or a fuzz target's
// seeds, keep the runs' order.
func TestClearestFirst(t *testing.T) {
	failed := func(tests ...string) *testRun {
		r := &testRun{events: &testevents.Run{}}
		for _, test := range tests {
			r.events.Failed = append(r.events.Failed, testevents.Event{Test: test})
		}
		if len(tests) > 0 {
			r.err = errors.New("exit status 1")
		}
		return r
	}
	shared, own := failed("TestAPI/BadInput/MaxStoredBytes", "TestAPI/BadInput", "TestAPI"), failed("TestAppendUserMatchesMarshal")
	if got := clearestFirst([]*testRun{shared, failed(), failed(), own}); got[0] != own || ownFailed(own) != "TestAppendUserMatchesMarshal" {
		t.Errorf("the stage's own failed test is not first")
	}
	seeds := failed("FuzzDifferential/seed#3", "FuzzDifferential")
	if got := clearestFirst([]*testRun{shared, failed(), failed(), seeds}); got[0] != shared || ownFailed(shared) != "" {
		t.Errorf("a fuzz target's seeds or a shared suite's test is taken for the stage's own")
	}
}

// A check of a stage that is its start with nothing changed looks at the rule after every round,
// from minRounds to as many as its budget holds, and stops at the first settled look: each look
// is a chance to call noise a step. Simulated on samples of one distribution, drawn in rounds
// that share the machine's drift as interleaved rounds do, the looks together must call a step
// rarely: at most 2.5% of checks, half what a 95% CI allows at one look.
func TestLooksAfterEveryRound(t *testing.T) {
	const checks, rounds, spread = 1000, 30, 0.2 // rounds: about what a minute and a half holds here
	random := rand.New(rand.NewPCG(45, 7))
	draw := func(drift float64) float64 { return drift * math.Exp(spread*random.NormFloat64()) }
	file := func(values []float64) *results.File {
		return results.NewFile("", nil, map[results.Measurement][]float64{{Bench: "B", Unit: "cpu-sec/op"}: slices.Clone(values)})
	}
	steps, alike := 0, 0
	for range checks {
		var base, again, stage []float64
		for n := 1; n <= rounds; n++ {
			drift := math.Exp(spread * random.NormFloat64())
			base, again, stage = append(base, draw(drift)), append(again, draw(drift)), append(stage, draw(drift))
			if n < minRounds {
				continue
			}
			step, err := results.Compare(file(base), file(again), file(stage), "B")
			if err != nil {
				t.Fatal(err)
			}
			if settled(step, n == rounds) {
				if step.Decided {
					steps++
				} else {
					alike++
				}
				break
			}
		}
	}
	t.Logf("%d checks of identical code, up to %d rounds each: %d called a step, %d alike", checks, rounds, steps, alike)
	if steps > checks/40 {
		t.Errorf("%d of %d checks of identical code called a step; want at most 2.5%%", steps, checks)
	}
}
