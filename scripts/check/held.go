package main

import (
	"fmt"
	"path/filepath"

	"example.com/userperf/scripts/internal/harness"
	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/stages"
)

// heldQuestions are the exercises, by their start, whose check also weighs the heap that a stage
// holds per user against the reference's: exercise 5 encodes each user once, on write. Its known
// wrong turn, one encoding per role, is as right and reads as fast as the reference, and only the
// memory it holds tells it apart.
var heldQuestions = map[string]bool{"stage4-append": true}

const (
	heldRow  = "Build/users=10000" // at the size of the check's read row
	heldUnit = "held-B/user"       // the heap a stage holds beyond the users themselves, after a collection
	// heldRounds are the samples of each stage: a build holds nearly the same heap every time.
	heldRounds = 3
	// heldFactor is how many times the reference's heap per user a stage may hold before its reads
	// must pay for it. A user holds about five roles: a copy per role holds several times the
	// reference's, and a design that keeps one per user stays well under twice.
	heldFactor = 2.0
)

// held runs BenchmarkBuild at heldRow of each stage of list in heldRounds interleaved rounds of
// run, and returns the median heap that each holds per user, in the order of list.
func (k *check) held(run *harness.Run, list []stages.Folder, header string) []float64 {
	fmt.Printf("\n   and the heap held per user (%s, %s): %d samples each of %s and %s\n",
		heldUnit, heldRow, heldRounds, list[0].Name, list[1].Name)
	reads := run.Rounds
	defer func() { run.Rounds = reads }() // what Keep says
	run.Rounds = heldRounds
	for n := 1; n <= heldRounds; n++ {
		k.round(run, n, list, heldRow, "1x", ".held", header)
	}
	fmt.Println()
	var medians []float64
	for _, s := range list {
		file := filepath.Join(run.Dir, s.Name+".held.txt")
		held := k.read(file).Values(heldRow, heldUnit)
		if len(held) == 0 {
			k.must(fmt.Errorf("%s: no %s at %s", file, heldUnit, heldRow), "measuring the heap held by "+s.Name, file)
		}
		medians = append(medians, results.Median(held))
	}
	return medians
}

// heldVerdict weighs mine, the heap that stage holds per user, against ref, the reference's: a
// failure when it holds more than heldFactor times as much and its reads are not faster for it,
// else a note when it holds that much, or nothing.
func heldVerdict(stage, reference string, mine, ref float64, fasterReads bool) (failure, note string) {
	if ref <= 0 || mine <= heldFactor*ref {
		return "", ""
	}
	held := fmt.Sprintf("%s holds %.0f bytes per user (%s, counted after a garbage collection), %s the %.0f of %s",
		stage, mine, heldUnit, results.Times(mine/ref), ref, reference)
	if fasterReads {
		return "", held + ", paid for by reads faster than " + reference + "'s"
	}
	return held + ", and reads no faster than it. The heap alone cannot tell which of these holds the bytes: " + heldCauses, ""
}

// heldCauses are what makes a stage hold more heap per user, which one count cannot tell apart.
const heldCauses = "a copy of each user's JSON per role (encode each once, and let every list point to it);" +
	" one arena that New or Add appends every user to, whose outgrown arrays stay pinned by the slices cut from them (a slice per user);" +
	" or spare capacity kept (a buffer's or append's slack: slices.Clip, or a slice made to its length)"
