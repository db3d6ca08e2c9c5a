package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// handInFile is a file as handin.sh writes it: one exercise, ex1, with the
// verdict given and its check's sec/op of the room's row for the stage it
// started from, the participant's own and the reference.
func handInFile(who, verdict string, origin, mine, reference float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "participant: %s\nmachine-cpu: Test CPU\nmachine-cores: 2\nverdict-ex1: %s\n", who, verdict)
	for _, m := range []struct {
		role string
		sec  float64
	}{{"origin", origin}, {"mine", mine}, {"reference", reference}} {
		fmt.Fprintf(&b, "exercise: ex1\nrole: %s\n", m.role)
		for range 3 {
			fmt.Fprintf(&b, "Benchmark%s-2 100 %.0f ns/op\n", roomRow, m.sec*1e9)
		}
	}
	return b.String()
}

// TestRoomMarksWrongAndNoisy checks the room table: a failed check is WRONG
// whatever its speed and is left out of the room's median, a check that
// said it could not tell is marked, and each ratio divides times from its
// own participant's file.
func TestRoomMarksWrongAndNoisy(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"ada.txt":   handInFile("Ada", "passed: ...", 4e-6, 1e-6, 2e-6),
		"grace.txt": handInFile("Grace", "FAILED: the conformance suite (TestAPI), see above", 4e-6, 1e-9, 2e-6),
		"ken.txt":   handInFile("Ken", "passed: ... (too noisy to tell: ±80%; close other programs, then run again)", 9e-6, 3e-6, 3e-6),
	}
	var paths []string
	for name, content := range files {
		write(t, filepath.Join(dir, name), content)
		paths = append(paths, filepath.Join(dir, name))
	}
	if err := room(dir, paths); err != nil {
		t.Fatal(err)
	}
	// The columns' padding aside: a cell ends at its "|".
	table := regexp.MustCompile(` +\|`).ReplaceAllString(read(t, filepath.Join(dir, "table.txt")), "|")
	for _, want := range []string{
		"Ada|Test CPU, 2 cores|ok, 4.0x vs start, 2.0x vs ref",
		"Grace|Test CPU, 2 cores|WRONG: the conformance suite (TestAPI)\n",
		"Ken|Test CPU, 2 cores|ok, 3.0x vs start, 1.0x vs ref (noisy)",
		// The median of Ada's and Ken's alone: Grace's thousandfold answer is wrong.
		"room median|3 participants|3.5x vs start, 1.5x vs ref",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("the room table lacks %q:\n%s", want, table)
		}
	}
}
