package results

import (
	"os"
	"path/filepath"
	"testing"
)

// Exercise 1 asks where an index shows; a stage that starts no exercise is asked the headline's row.
func TestQuestion(t *testing.T) {
	if got := Question("stage0-linear"); got != "ListByRole/users=100000/matches=100" {
		t.Errorf("Question(stage0-linear) = %s", got)
	}
	if got := Question("workshop/quest6-cache"); got != "ListByRole/users=10000/matches=100" {
		t.Errorf("Question(workshop/quest6-cache) = %s", got)
	}
}

// A copy of a copy of an exercise's start is asked that exercise's question, however many copies away.
func TestExerciseStart(t *testing.T) {
	root := t.TempDir()
	for dir, origin := range map[string]string{"ex2": "stage1-index", "ex2b": "ex2", "ex2c": "ex2b", "mine": "", "loop": "loop",
		"mycache": "workshop/quest6-cache", "stage1-index": ""} {
		mod := "module example.com/" + dir + "\n"
		if origin != "" {
			mod += "\n// origin: " + origin + " (the stage this module started from)\n"
		}
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, dir, "go.mod"), []byte(mod), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ dir, from, want string }{
		{"ex2", "", "stage1-index"},
		{"ex2b", "", "stage1-index"},
		{"ex2c", "", "stage1-index"},
		{"ex2c", "stage0-linear", "stage0-linear"}, // --from names the start
		{"mine", "", ""},
		{"loop", "", ""},
		{"mycache", "", ""}, // a side quest has no question of its own
		{"stage1-index", "", ""},
	} {
		if got := ExerciseStart(root, c.dir, c.from); got != c.want {
			t.Errorf("ExerciseStart(%s, from %q) = %q, want %q", c.dir, c.from, got, c.want)
		}
	}
	if got := Question(ExerciseStart(root, "ex2c", "")); got != Matches1000 {
		t.Errorf("a copy of a copy of stage1-index is asked %s, want exercise 2's row %s", got, Matches1000)
	}
}
