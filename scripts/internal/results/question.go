package results

import (
	"cmp"
	"path"

	"example.com/userperf/scripts/internal/stages"
)

// questions are the rows of BenchmarkListByRole that answer each exercise's question, by the stage
// it starts from: where what the step changes shows most. Any other stage is asked the headline's.
var questions = map[string]string{
	"stage0-linear":   "ListByRole/users=100000/matches=100", // an index: the scan it skips grows with the users
	"stage1-index":    Matches1000,                           // views, not copies: the copy grows with the matches
	"stage2-noclone":  Matches1000,                           // a reserved body: its growth, with the body
	"stage3-parallel": Matches1000,                           // an appending encoder: the encoding, with the body
	"stage4-append":   Matches1000,                           // encoding once, on write: each request's encoding
}

// Question is the row that answers the question of the exercise starting at base: the row of
// check's verdicts, and of compare's for a learner's stage.
func Question(base string) string {
	if row, ok := questions[base]; ok {
		return row
	}
	return Headline
}

// ExerciseStart is the stage that the exercise of the stage in folder dir starts from: the first
// on its chain of origins (from, a folder, else dir's go.mod's "// origin:", then that one's...)
// that questions names, so that a copy of a copy of stage1-index is asked stage 1's question;
// or "" for none.
func ExerciseStart(root, dir, from string) string {
	walk := cmp.Or(from, stages.Origin(root, dir))
	for n := 0; walk != "" && n < 10; n++ { // the bound stops a loop of origin lines
		if _, ok := questions[path.Base(walk)]; ok {
			return path.Base(walk)
		}
		walk = stages.Origin(root, walk)
	}
	return ""
}
