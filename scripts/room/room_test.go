package main

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/stages"
)

// handInFile is a file as handin writes it, with one exercise, ex1, made
// from stage0-linear: the verdict given, and the speed-ups its check
// measured against the start and the reference, with a result line as the
// record has. extra lines follow the verdict's.
func handInFile(who, id, verdict string, origin, reference float64, extra ...string) string {
	return fmt.Sprintf("participant: %s\nid: %s\nmachine-cpu: Test CPU\nmachine-cores: 2\ncommit: 8899ddb\n"+
		"origin-ex1: stage0-linear\nverdict-ex1: %s\nspeedup-ex1-origin: %g\nspeedup-ex1-reference: %g\n%s"+
		"exercise: ex1\nrole: mine\npkg: example.com/userperf/ex1\nBenchmark%s-2 100 1000 ns/op\n",
		who, id, verdict, origin, reference, strings.Join(extra, ""), results.Headline)
}

// workshopStarts stands for the workspace's exercise starts (exerciseStarts, tested on its own).
func workshopStarts(stage string) bool {
	return stages.IsStep(stage) && stage != "stage6-blocks"
}

// Verdicts of checks, as the check wrote them and writes them now: the
// first clause is about the start, and only the first says whether the
// ratio against the start could be told.
const (
	oldUnsure = "passed: no difference from stage0-linear: cannot tell on this machine (CPU time, floor ±80%, unstable), " +
		"3.0x faster than stage1-index (CPU time, floor ±5%, reliable) (ListByRole/users=10000/matches=100)"
	newTold = "passed: at ListByRole/users=100000/matches=100: 4.0x faster than stage0-linear in CPU time (the two differ by 75%; " +
		"the same stage measured twice differed by up to 5%; reliable); you predicted 2x, it measured 4.0x. cannot tell on this machine " +
		"whether it differs from stage1-index in CPU time (the two differ by 3%; the same stage measured twice differed by up to 9%; noisy)"
	newUnsure = "passed: at ListByRole/users=100000/matches=100: fewer allocs/op than stage0-linear: 47% fewer allocs/op, counted exactly; " +
		"CPU time cannot tell on this machine (the two differ by 75%; the same stage measured twice differed by up to 90%; unstable). " +
		"2.0x faster than stage1-index in CPU time (the two differ by 50%; the same stage measured twice differed by up to 5%; reliable)"
)

// TestRoom checks the offline table: a failed check is wrong whatever its
// speed and is left out of the room's median; a check that could not tell
// its ratio from the start is marked; a prediction sits beside its
// measurement, and the room's guesses are scored; a bug copy made from an
// exercise's stage gets no column.
func TestRoom(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"ada.txt":   handInFile("Ada", "", newTold, 4, 2, "predicted-ex1: 2x\n"),
		"grace.txt": handInFile("Grace", "", "FAILED: the conformance suite (TestAPI), see above", 4000, 2000),
		"ken.txt":   handInFile("Ken", "", oldUnsure, 3, 1, "predicted-ex1: 6x\n"),
		"rob.txt": handInFile("Rob", "", newUnsure, 4, 4,
			"origin-bug1: ex1\nverdict-bug1: FAILED: the differential tests\n", "origin-ex2: stage1-index\nverdict-ex2: passed: ...\n"),
	}
	var paths []string
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, filepath.Join(dir, name))
	}
	if err := room(dir, paths, workshopStarts); err != nil {
		t.Fatal(err)
	}
	table, err := os.ReadFile(filepath.Join(dir, "table.txt"))
	if err != nil {
		t.Fatal(err)
	}
	got := regexp.MustCompile(`  +`).ReplaceAllString(string(table), "|") // a column's padding is its border
	for _, want := range []string{
		"participant|ex1|ex2\n",
		"Ada|✓ 4.0x (guess 2x)|—\n",
		"Grace|✗|—\n",
		"Ken|✓ ?3.0x (guess 6x)|—\n",
		"Rob|✓ −47% allocs|✓\n", // the time could not tell, the allocations did
		// Ada's, Ken's and Rob's 4x, 3x and 4x; Ada's and Ken's guesses, 2x and 6x, are 2x away from theirs.
		"room median|4.0x of 3, guessed 4.0x, off 2.0x|—\n",
		"✗ Grace, ex1: the conformance suite (TestAPI)\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the room table lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "bug1") {
		t.Errorf("the table shows bug1, made from ex1 rather than from an exercise's start:\n%s", got)
	}
	chart, err := os.ReadFile(filepath.Join(dir, "room.svg"))
	if err != nil || xml.Unmarshal(chart, new(struct{})) != nil || strings.Count(strings.ToLower(string(chart)), "#1f77b4") < 3 {
		t.Errorf("room.svg (%v) is not well-formed or lacks the answers' marks in ex1's colour:\n%.300s", err, chart)
	}
	// ZgotmplZ is what html/template writes for a value it would not put where the template put it.
	if page, err := os.ReadFile(filepath.Join(dir, "index.html")); err != nil || strings.Contains(string(page), "ZgotmplZ") || !strings.Contains(string(page), "border-top-color: #1f77b4") {
		t.Errorf("index.html (%v) lost a value or ex1's colour:\n%s", err, page)
	}
}

// TestExerciseStarts checks which of the workspace's stages start an
// exercise: the steps with a next one and the quests; not the last step, the
// floor or a solution.
func TestExerciseStarts(t *testing.T) {
	isStart, err := exerciseStarts(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for stage, want := range map[string]bool{
		"stage0-linear": true, "stage2-noclone": true, "stage5-materialized": true, "quest6-cache": true, "quest7-logging": true,
		"stage6-blocks": false, "floor": false, "ex4-plain-append": false, "quest6-cache-fixed": false, "ex1": false,
	} {
		if isStart(stage) != want {
			t.Errorf("isStart(%s) = %v, want %v", stage, !want, want)
		}
	}
}
