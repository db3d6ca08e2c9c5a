// Command check gives one verdict on a stage, yours or the project's,
// within a few minutes: right, and how much faster than where it started.
//
// Usage:
//
//	go run ./scripts/check [flags] STAGE
//
// First go vet; then, under -race, the conformance suite and the
// differential tests at GOMAXPROCS 1 and 3 (at 8 the differential and the
// concurrent tests), the fuzz seed corpora and the stage's own tests, in
// four processes at once, up to the first failure. Tests still running
// after 10 minutes (USERPERF_CHECK_TIMEOUT), or using no CPU for a minute
// without finishing a test, are stopped, and called a deadlock only when
// their goroutines wait for a lock. Then the speed, at the row of the
// benchmarks that answers the exercise's question: rounds of one sample
// each of the stage, its start (the stage its go.mod's "// origin:" line
// names), the exercise's reference (its solution in workshop/solutions,
// else the next step) and the start again, which says how far the same
// stage measured twice differs, interleaved, until the stage and its start
// are told apart (before the budget's end, only at a p-value under 0.01:
// looking after every round would otherwise call noise a step more often)
// or shown alike, or the budget is spent. Exercise 5 (from
// stage4-append) also weighs the heap held per user against its
// reference's: more than twice as much, with reads no faster, fails. Each
// step's output, the speeds, the verdict and how long the check took
// (wall.txt) are kept in results/check/STAGE/.
//
// The flags are:
//
//	--predict RATIO
//		Record your guess of the speed-up against the start (3x: three times
//		faster; 0.8x: slower) in results/check/STAGE/prediction.txt. Every later
//		check prints it beside the measured one, and scripts/handin carries both.
//	--no-check
//		With --predict: record the guess and stop. Predict first, then change
//		the stage.
//	--budget D
//		The longest the speed step may measure (default: what is left of a
//		minute since the check began, a minute and a half for exercises 3
//		and 4; at least 20s).
//	--no-compare
//		Stop after the tests: no speed.
//	--from START
//		Measure against this stage instead of the go.mod's origin line's.
//	--against REFERENCE
//		Measure this stage as the reference instead of the exercise's.
//	--hold-cores
//		Keep every core busy with another process meanwhile, as a loaded
//		machine would.
//	--watch
//		Check the stage again on every save in its folder, until Ctrl-C: go
//		vet and its tests without the race detector, with a progress line,
//		then once they pass the speed step and its verdict.
//	--prepare
//		Before a workshop: vet and build every stage's tests and benchmarks,
//		link the commands, write local.work, check stage1-index without its
//		speed, and say how long it took.
//	--rehearse [N...]
//		Time the workshop's checks: --prepare, then for each exercise (or
//		those named) a copy of its reference checked alone and three checked
//		at once; writes results/rehearsal/ and WORKSHOP.md's rehearsal block.
//
// # Examples
//
//	go run ./scripts/check --predict 3x --no-check ex4
//	go run ./scripts/check ex4
//	go run ./scripts/check ex4 --against stage4-append
//	go run ./scripts/check --watch ex4
package main

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"example.com/userperf/scripts/internal/harness"
	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/stages"
)

// check is one run of the command: the stage, where its results go and how far it got.
type check struct {
	*harness.Cmd
	stage   stages.Folder
	logs    string        // results/check/STAGE
	binary  string        // the stage's test binary
	timeout time.Duration // the longest a run of tests may take
	step    int
	began   time.Time
}

func main() {
	k := &check{Cmd: harness.New("check"), began: time.Now()}
	startFlag, against := k.Flags.String("from", "", ""), k.Flags.String("against", "", "")
	predict := k.Flags.String("predict", "", "")
	noCompare, noCheck := k.Flags.Bool("no-compare", false, ""), k.Flags.Bool("no-check", false, "")
	budget := k.Flags.Duration("budget", 0, "")
	hold := k.Flags.Bool("hold-cores", false, "")
	prepare, rehearse := k.Flags.Bool("prepare", false, ""), k.Flags.Bool("rehearse", false, "")
	watch, watched := k.Flags.Bool("watch", false, ""), k.Flags.Bool(afterWatch, false, "")
	args := k.Parse()
	if *prepare && len(args) > 0 {
		k.Usage("--prepare prepares every stage and takes none: go run ./scripts/check --prepare")
	} else if *prepare {
		k.prepare()
		k.Exit(0)
	} else if *rehearse {
		k.rehearse(args)
		k.Exit(0)
	}
	if len(args) != 1 {
		k.Usage("name one stage to check: go run ./scripts/check STAGE (--help for more)")
	}
	timeout, err := time.ParseDuration(cmp.Or(os.Getenv("USERPERF_CHECK_TIMEOUT"), "10m"))
	if err != nil || timeout <= 0 {
		k.Usage("USERPERF_CHECK_TIMEOUT=%s: give a duration, such as 10m", os.Getenv("USERPERF_CHECK_TIMEOUT"))
	}
	k.timeout = timeout
	if *predict != "" && !validPrediction(*predict) {
		k.Usage("--predict %s: give a speed-up as a number and x, such as 3x, 1.5x or 0.8x (slower)", *predict)
	} else if *noCheck && *predict == "" {
		k.Usage("--no-check records a prediction and stops: give it one, such as --predict 3x")
	}
	found, err := stages.Find(k.Root, filepath.Base(args[0]))
	if err != nil {
		k.Usage("%v: give a stage's folder, such as mystage or stage1-index", err)
	}
	k.stage = found[0]
	if *hold {
		k.Cleanup(harness.HoldCores()) // as another program would, on a busy laptop
	}
	// base is the stage measured against: the nearest of the workspace on the stage's chain of starts.
	base, reference, err := stages.Against(k.Root, k.stage.Dir, *startFlag)
	startDir := *startFlag // a folder, for the chain of starts: a stage's name is found in the workspace
	if list, err := stages.Find(k.Root, filepath.Base(startDir)); startDir != "" && err == nil {
		startDir = list[0].Dir
	}
	role := "reference" // the exercise's own reference, which the room's median counts
	if *against != "" && filepath.Base(*against) != reference {
		reference, role = filepath.Base(*against), "vs-"+filepath.Base(*against)
		_, err = stages.Find(k.Root, reference)
	}
	if err != nil {
		k.Usage("cannot tell what to compare %s with: %v", args[0], err)
	}
	k.logs = filepath.Join("results", "check", k.stage.Name)
	if *watch {
		k.watch() // until Ctrl-C (watch.go)
	}
	prediction := k.prediction(*predict, !*noCheck)
	if *noCheck {
		fmt.Printf("check: recorded your prediction for %s: %s against %s, in %s; change it, then go run ./scripts/check %s\n",
			k.stage.Name, prediction, cmp.Or(base, "nothing"), filepath.Join(k.logs, "prediction.txt"), k.stage.Name)
		k.Exit(0)
	}
	k.binary = filepath.Join(k.Root, k.logs, "stage.test")
	if runtime.GOOS == "windows" { // Windows runs no other
		k.binary += ".exe"
	}
	k.Cleanup(func() { os.Remove(k.binary) })
	if !*watched { // the watch ran the tests
		k.tests()
	}
	if *noCompare {
		k.next("the speed: not measured (--no-compare)")
		k.verdict("passed (no speed comparison: --no-compare)")
		k.Exit(0) // which removes the test binary
	}
	start := results.ExerciseStart(k.Root, k.stage.Dir, startDir)
	if *budget <= 0 { // what is left of the check's time, and no less than the fewest rounds take
		*budget = max(20*time.Second, time.Until(k.began.Add(cmp.Or(checkTimes[start], time.Minute))))
	}
	k.verdict("passed: " + k.speed(base, start, reference, role, prediction, *budget))
	k.Exit(0)
}

// checkTimes are how long a check of the exercise starting at a stage should take on an idle machine,
// its speed included, where not a minute: exercises 3 and 4 test stage 3's chunks, split on every list.
var checkTimes = map[string]time.Duration{"stage2-noclone": 90 * time.Second, "stage3-parallel": 90 * time.Second}

// prediction records predicted in results/check/STAGE/prediction.txt, if given, and returns the
// stage's prediction; with clear, it empties the folder of the stage's last check, but for that file.
func (k *check) prediction(predicted string, clear bool) string {
	file := filepath.Join(k.logs, "prediction.txt")
	if predicted == "" {
		kept, _ := os.ReadFile(file) // none recorded is fine
		if predicted = strings.TrimSpace(string(kept)); !validPrediction(predicted) {
			predicted = ""
		}
	}
	if clear {
		k.Fatal(os.RemoveAll(k.logs))
	}
	k.Fatal(os.MkdirAll(k.logs, 0o755))
	if predicted != "" {
		k.Fatal(os.WriteFile(file, []byte(predicted+"\n"), 0o644))
	}
	return predicted
}

var speedUp = regexp.MustCompile(`^[0-9]{1,6}(\.[0-9]{1,3})?x$`)

// validPrediction reports whether p is a speed-up as the verdicts write it: a positive number and x.
func validPrediction(p string) bool {
	r, _ := strconv.ParseFloat(strings.TrimSuffix(p, "x"), 64)
	return speedUp.MatchString(p) && r > 0
}

func (k *check) next(what string) {
	k.step++
	fmt.Printf("== check %d/3: %s\n", k.step, what)
}

// verdict prints the last line, its lines indented, and keeps it in verdict.txt on one line
// ("passed: at ROW: v1. v2"), which scripts/handin copies into a hand-in; and wall.txt, for report timings.
func (k *check) verdict(text string) {
	fmt.Printf("\ncheck: %s %s\n", k.stage.Name, strings.ReplaceAll(text, "\n", "\n  "))
	line := strings.ReplaceAll(strings.Replace(text, ":\n", ": ", 1), "\n", ". ")
	k.Fatal(os.WriteFile(filepath.Join(k.logs, "verdict.txt"), []byte(line+"\n"), 0o644))
	k.Fatal(results.WriteWall(filepath.Join(k.logs, results.WallFile), k.Header(), time.Since(k.began)))
}

// must ends the check with the verdict "FAILED: what" if err, which it prints, is not nil; the
// verdict names log, the file with the whole output, since the hand-in carries no terminal.
func (k *check) must(err error, what, log string) {
	if err == nil {
		return
	}
	fmt.Fprintln(os.Stderr, err)
	where := "the output above"
	if log != "" {
		where = filepath.ToSlash(log)
	}
	k.verdict("FAILED: " + what + " (" + where + " says why)")
	k.Exit(1)
}
