package main

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"example.com/userperf/scripts/internal/figures"
)

// handInFile is a file as handin writes it: one exercise, ex1, with the
// verdict given and the speed-ups its check measured against the stage it
// started from and the reference, with a result line as the record has.
func handInFile(who, verdict string, origin, reference float64) string {
	return fmt.Sprintf("participant: %s\nmachine-cpu: Test CPU\nmachine-cores: 2\ncommit: 8899ddb\nverdict-ex1: %s\n"+
		"speedup-ex1-origin: %g\nspeedup-ex1-reference: %g\nexercise: ex1\nrole: mine\npkg: example.com/userperf/ex1\n"+
		"Benchmark%s-2 100 1000 ns/op\n", who, verdict, origin, reference, figures.Headline)
}

// TestRoom checks the room table: a failed check is WRONG whatever its
// speed and is left out of the room's median; a check that said it could
// not tell is marked; each median says how many answers it counts.
func TestRoom(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"ada.txt":   handInFile("Ada", "passed: ...", 4, 2),
		"grace.txt": handInFile("Grace", "FAILED: the conformance suite (TestAPI), see above", 4000, 2000),
		"ken.txt":   handInFile("Ken", "passed: 3.0x faster than stage0-linear (CPU time, floor ±5%, reliable), no difference from ex1-ref: cannot tell on this machine (CPU time, floor ±80%, unstable)", 3, 1),
		"rob.txt":   handInFile("Rob", "passed: ...", 4, 4),
		"ann.txt":   strings.Replace(handInFile("Ann", "passed: ...", 8, 8), "speedup-ex1-reference:", "speedup-ex1-vs-stage4-append:", 1),
	}
	var paths []string
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, filepath.Join(dir, name))
	}
	if err := room(dir, paths, "go run ./scripts/room handins/*.txt"); err != nil {
		t.Fatal(err)
	}
	table, err := os.ReadFile(filepath.Join(dir, "table.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// The columns' padding aside: a cell ends at its "|".
	got := regexp.MustCompile(` +\|`).ReplaceAllString(string(table), "|")
	for _, want := range []string{
		"Ada|Test CPU, 2 cores|ok, 4.0x vs start, 2.0x vs ref",
		"Grace|Test CPU, 2 cores|WRONG: the conformance suite (TestAPI)\n",
		"Ken|Test CPU, 2 cores|ok, 3.0x vs start, 1.00x vs ref (cannot tell)",
		"Rob|Test CPU, 2 cores|ok, 4.0x vs start, 4.0x vs ref",
		"Ann|Test CPU, 2 cores|ok, 8.0x vs start, 8.0x vs stage4-append (not the reference: left out of the median)",
		// Ada's, Ken's, Rob's and Ann's: 4x, 3x, 4x and 8x against their start; 2x, 1x and 4x against the reference.
		"room median|right answers only|4.0x vs start (4 answers), 2.0x vs ref (3 answers)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the room table lacks %q:\n%s", want, got)
		}
	}
	chart, err := os.ReadFile(filepath.Join(dir, "room.svg"))
	if err != nil || xml.Unmarshal(chart, new(struct{})) != nil || !strings.Contains(string(chart), "commit `8899ddb`") {
		t.Errorf("room.svg (%v) is not well-formed or does not name the commit:\n%.300s", err, chart)
	}
}
