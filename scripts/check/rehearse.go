package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"example.com/userperf/scripts/internal/harness"
	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/stages"
)

// exerciseStarts are the stages that exercises 1 to 5 start from, in order.
var exerciseStarts = []string{"stage0-linear", "stage1-index", "stage2-noclone", "stage3-parallel", "stage4-append"}

// rehearsalDir holds the last rehearsal's wall times, which scripts/report rehearsal writes as a block.
var rehearsalDir = filepath.Join("results", "rehearsal")

// participants is how many participants' checks the rehearsal runs at once, as on a shared machine.
const participants = 3

// rehearse times what the workshop's agenda waits for: the preparation, then for each exercise (or
// those named) a check of a finished answer alone, and participants' checks at once. Each time goes
// to rehearsalDir, and the block "rehearsal" of WORKSHOP.md is written from them.
func (k *check) rehearse(exercises []string) {
	chosen := map[int]bool{}
	for _, e := range exercises {
		n, err := strconv.Atoi(strings.TrimPrefix(e, "ex"))
		if err != nil || n < 1 || n > len(exerciseStarts) {
			k.Usage("--rehearse %s: name exercises by their numbers, 1 to %d, or none for all", e, len(exerciseStarts))
		}
		chosen[n] = true
	}
	k.Fatal(os.RemoveAll(rehearsalDir))
	k.Fatal(os.MkdirAll(rehearsalDir, 0o755))
	wall := func(name string, took time.Duration) {
		k.Fatal(results.WriteWall(filepath.Join(rehearsalDir, name+".txt"), k.Header(), took))
	}
	took, err := timed(filepath.Join(rehearsalDir, "prepare.log"), "--prepare")
	k.must(err, "the preparation", filepath.Join(rehearsalDir, "prepare.log"))
	wall("prepare", took)
	fmt.Printf("== prepared in %s\n", took.Round(time.Second))
	list, err := stages.List(k.Root)
	k.Fatal(err)
	for i, start := range exerciseStarts {
		if len(chosen) > 0 && !chosen[i+1] {
			continue
		}
		found, err := stages.Find(k.Root, stages.Solution(k.Root, list, start))
		k.must(err, fmt.Sprintf("finding exercise %d's reference", i+1), "")
		var names []string
		for p := range participants {
			names = append(names, fmt.Sprintf("rehearse-ex%d-%c", i+1, 'a'+p))
			k.answer(names[p], start, found[0].Dir)
		}
		alone := k.checkAll(names[:1])
		wall(fmt.Sprintf("ex%d-alone", i+1), alone)
		together := k.checkAll(names)
		wall(fmt.Sprintf("ex%d-together", i+1), together)
		fmt.Printf("== exercise %d: a check alone %s, %d at once %s (the slowest)\n", i+1,
			alone.Round(time.Second), participants, together.Round(time.Second))
		for _, name := range names {
			k.Fatal(harness.Go("run", "./scripts/new-stage", "--remove", name))
		}
	}
	k.Fatal(harness.Go("run", "./scripts/report", "rehearsal", "--file", "WORKSHOP.md"))
	fmt.Printf("\ncheck: rehearsed in %s; the times are in %s and WORKSHOP.md\n", harness.Elapsed(k.began), rehearsalDir)
}

// answer makes name, a copy of start, as new-stage makes a participant's, with the files of the
// reference in folder ref but its main.go, which names the stage: a participant who finished.
func (k *check) answer(name, start, ref string) {
	if slices.Contains(stages.Mine("."), name) { // a rehearsal stopped halfway
		k.Fatal(harness.Go("run", "./scripts/new-stage", "--remove", name))
	}
	k.Fatal(harness.Go("run", "./scripts/new-stage", name, "--from", start))
	files, _ := filepath.Glob(filepath.Join(ref, "*.go")) // a pattern without errors
	for _, f := range slices.DeleteFunc(files, func(f string) bool { return filepath.Base(f) == "main.go" }) {
		data, err := os.ReadFile(f)
		k.Fatal(err)
		k.Fatal(os.WriteFile(filepath.Join(name, filepath.Base(f)), data, 0o644))
	}
}

// checkAll checks the stages names at once, each by its own go run as a participant would, and
// returns how long the slowest took; a failed check ends the rehearsal, naming its output.
func (k *check) checkAll(names []string) time.Duration {
	walls, errs := make([]time.Duration, len(names)), make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() { walls[i], errs[i] = timed(filepath.Join(rehearsalDir, name+".log"), name) })
	}
	fmt.Printf("== checking %s at once\n", strings.Join(names, ", "))
	k.Fatal(harness.Progress(func() string { return "still checking" }, func() error { wg.Wait(); return nil }))
	for i, err := range errs {
		k.must(err, "the check of "+names[i], filepath.Join(rehearsalDir, names[i]+".log"))
	}
	return slices.Max(walls)
}

// timed runs go run ./scripts/check with args, its output in the file log, and returns how long it took.
func timed(log string, args ...string) (time.Duration, error) {
	f, err := os.Create(log)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	cmd := exec.Command("go", append([]string{"run", "./scripts/check"}, args...)...)
	cmd.Stdout, cmd.Stderr = f, f
	began := time.Now()
	err = cmd.Run()
	return time.Since(began), err
}
