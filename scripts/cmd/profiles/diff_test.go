package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// shareOf sums the CPU time of a fixture profile of stage.
func shareOf(t *testing.T, stage string, raw *profile.Profile) shares {
	t.Helper()
	s, err := sumByFunction(normalizer{"example.com/userperf/" + stage}.normalize(raw), cpuTime)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestMoves(t *testing.T) {
	before := shareOf(t, "stage0-linear", stageCPU("stage0-linear"))
	after := shareOf(t, "stage1-index", indexCPU("stage1-index"))
	ms := moves(before, after)
	// After, of 40ms: the map lookup 2, encodeUsers 8, growslice 20, GC 10.
	want := []move{
		{"main.(*Store).findByRole", 65, 0},
		{"runtime.growslice", 20, 50},
		{"main.encodeUsers", 5, 20}, // a tie, by name
		{"runtime.gcBgMarkWorker", 10, 25},
		{"runtime.mapaccess1_faststr", 0, 5},
	}
	if len(ms) != len(want) {
		t.Fatalf("moves = %+v, want %+v", ms, want)
	}
	for i := range want {
		if ms[i] != want[i] {
			t.Errorf("move %d = %+v, want %+v", i, ms[i], want[i])
		}
	}
}

func TestMovesOfTheSameStageAreZero(t *testing.T) {
	s := shareOf(t, "stage0-linear", stageCPU("stage0-linear"))
	for _, m := range moves(s, s) {
		if m.change() != 0 {
			t.Errorf("%s moved %+.1f points against itself", m.name, m.change())
		}
	}
}

func TestWriteMoves(t *testing.T) {
	ms := []move{{"main.(*Store).findByRole", 65, 5}, {"runtime.growslice", 20, 50}, {"main.encodeUsers", 5, 20}}
	var text, md strings.Builder
	writeMoves(&text, "stage0-linear", "stage1-index", ms, 2, false)
	writeMoves(&md, "stage0-linear", "stage1-index", ms, 2, true)
	wantText := `stage0-linear  stage1-index   change  function
       65.00%         5.00%   -60.00  main.(*Store).findByRole
       20.00%        50.00%   +30.00  runtime.growslice
                                      (1 more function that moved less)
`
	wantMD := "| stage0-linear flat % | stage1-index flat % | change (points) | function |\n|---:|---:|---:|:---|\n" +
		"| 65.0 | 5.0 | -60.0 | `main.(*Store).findByRole` |\n" +
		"| 20.0 | 50.0 | +30.0 | `runtime.growslice` |\n" +
		"| | | | 1 more function that moved less |\n"
	if text.String() != wantText {
		t.Errorf("text:\n%s\nwant:\n%s", text.String(), wantText)
	}
	if md.String() != wantMD {
		t.Errorf("markdown:\n%s\nwant:\n%s", md.String(), wantMD)
	}
}

func TestTopCommand(t *testing.T) {
	dir := writeRun(t, t.TempDir(), "stage0-linear", stageCPU("stage0-linear"), stageMem("stage0-linear"))
	var out strings.Builder
	if err := top(&out, []string{"-n", "3", dir}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	if !strings.HasPrefix(lines[0], "CPU time of BenchmarkListByRole/users=10000/matches=100 in stage0-linear (250.0µs/op), 100.0ms of samples in 3.000s") {
		t.Errorf("title: %q", lines[0])
	}
	if !strings.HasSuffix(lines[2], "main.(*Store).findByRole") {
		t.Errorf("first row %q does not name the scan", lines[2])
	}
	for _, want := range []string{"Allocated bytes of", "Allocated objects of", "slices.Clone[...]",
		"Measured on Test CPU (2 cores), go1.26.8, 2026-01-02T03:04Z, commit `8899ddb`, by `./scripts/profile.sh stage0-linear`."} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestDiffCommand(t *testing.T) {
	root := t.TempDir()
	a := writeRun(t, root, "stage0-linear", stageCPU("stage0-linear"), stageMem("stage0-linear"))
	b := writeRun(t, root, "stage1-index", indexCPU("stage1-index"), stageMem("stage1-index"))
	var out strings.Builder
	if err := diff(&out, []string{"-markdown", "-tables", "cpu", a, b}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "| 65.0 | 0.0 | -65.0 | `main.(*Store).findByRole` |\n") {
		t.Errorf("the scan's time did not move:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "\nstage1-index: Measured on Test CPU (2 cores), go1.26.8, 2026-01-02T03:04Z, commit `8899ddb`, by `./scripts/profile.sh stage1-index`.\n") {
		t.Errorf("the diff does not say where each profile was made:\n%s", out.String())
	}
	for _, dir := range []string{a, b} {
		f, err := os.Open(filepath.Join(dir, "cpu.normalized.pprof"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := profile.Parse(f); err != nil {
			t.Errorf("%s: %v", dir, err)
		}
	}
}

func TestCommandErrors(t *testing.T) {
	var out strings.Builder
	for _, args := range [][]string{
		{},                               // no directory
		{"-tables", "wall", t.TempDir()}, // no such table
		{t.TempDir()},                    // no bench.txt
	} {
		if err := top(&out, args); err == nil {
			t.Errorf("top %q: no error", args)
		}
	}
}
