package main

import (
	"cmp"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"example.com/userperf/scripts/internal/harness"
	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/stages"
)

// pattern is the -test.bench pattern that runs row alone: ^BenchmarkListByRole$/^users=10000$/^matches=100$.
func pattern(row string) string { return "^Benchmark" + strings.ReplaceAll(row, "/", "$/^") + "$" }

// minRounds is the fewest samples from which benchstat gives a p-value.
const minRounds = 6

// settled is whether the rounds can stop at step: alike, or decided, and before the last round
// only where benchstat's p-value is also under earlyP. A check looks after every round from
// minRounds on, and each look is a chance to call noise a step: with the rule alone at every
// look, identical code came out a step several times as often as at one look, which
// TestLooksAfterEveryRound bounds. The last round is held to the rule alone.
func settled(step results.Comparison, last bool) bool {
	return step.Same || step.Decided && (last || step.P < earlyP)
}

// earlyP is the p-value below which a decided step stops the rounds before the budget is spent.
const earlyP = 0.01

// speed measures the stage against base and reference, at the row that answers the question of
// the exercise starting at start (else base), in interleaved rounds, until the stage and
// base are told apart or shown alike, or budget is spent; it keeps each stage's samples in
// results/check/STAGE/speed-ROLE.txt and the speed-ups in speedups.txt, for scripts/handin, and
// returns the verdicts.
func (k *check) speed(base, start, reference, role, prediction string, budget time.Duration) string {
	if base == "" {
		k.next("the speed: nothing to compare it with")
		return "nothing to compare it with"
	}
	row := results.Question(cmp.Or(start, base))
	list, err := stages.Find(k.Root, others(base, k.stage.Name, reference)...)
	k.must(err, "finding the stages to compare", "")
	k.next(fmt.Sprintf("the speed at %s: %s against %s, until told apart or for up to %s",
		row, k.stage.Name, strings.Join(others(base, reference), " and "), budget))
	run := k.NewRun(path.Join("check", k.stage.Name, "rounds"), minRounds)
	var dirs []string
	for _, s := range list {
		dirs = append(dirs, s.Dir)
	}
	run.Build(dirs...)
	header := k.Header() + fmt.Sprintf("compare-settings: rounds=until decided, budget=%s, benchtime=100ms, bench=%s\n", budget, pattern(row))
	measured := append(list, stages.Folder{Name: base + ".again", Dir: list[0].Dir}) // the A/A pair: base measured twice
	file := func(name string) string { return filepath.Join(run.Dir, name+".txt") }
	read := func(name string) *results.File { return k.read(file(name)) }
	deadline, said, began := time.Now().Add(budget), time.Now(), time.Now()
	for n := 1; ; n++ {
		k.round(run, n, measured, row, "100ms", "", header)
		// The most rounds the budget holds at this pace, which the progress line counts to.
		run.Rounds = max(minRounds, n+int(time.Until(deadline)/(time.Since(began)/time.Duration(n))))
		if n < minRounds {
			continue
		}
		step, err := results.Compare(read(base), read(base+".again"), read(k.stage.Name), row)
		k.must(err, "comparing with "+base, file(k.stage.Name))
		if last := time.Now().After(deadline); settled(step, last) || last {
			run.Rounds = n
			break
		} else if time.Since(said) >= 15*time.Second {
			said = time.Now()
			status := "not decided yet"
			if step.Decided {
				status = fmt.Sprintf("decided, at p = %.2g: going on until p < %g or the budget's end", step.P, earlyP)
			}
			fmt.Printf("\r   round %d, %s left, %s:\n     %s\n", n, time.Until(deadline).Round(time.Second), status,
				results.FirstLine(step.Verdict(base)))
		}
	}
	var heldBy []float64 // the heap per user of the stage and of the reference (list: base, stage, reference)
	if heldQuestions[start] && role == "reference" && len(list) == 3 {
		heldBy = k.held(run, list[1:], header)
	}
	run.Keep()

	// The verdicts, each on lines of its own: the hand-in keeps their first lines (check's verdict).
	var summary []string
	fasterReads, speedups := false, "" // speedups: for the room, through scripts/handin
	aa, err := results.Compare(read(base), read(base+".again"), read(base+".again"), row)
	k.must(err, "comparing "+base+" with itself", file(base+".again"))
	mine := k.keep(file(k.stage.Name), "mine")
	for _, other := range [][2]string{{base, "origin"}, {reference, role}} { // "origin": the start's role, as handin and room read it
		if other[0] == "" {
			continue
		}
		// The reference has no A/A pair of its own: base's, of the same rounds, gives the noise band.
		c, err := results.Compare(k.keep(file(other[0]), other[1]), nil, mine, row)
		k.must(err, "comparing with "+other[0], file(other[0]))
		c = c.WithNoise(aa.Noise)
		verdict := c.Verdict(other[0])
		fmt.Printf("   against %s (%s):\n     %s\n", other[0], other[1], strings.ReplaceAll(verdict, "\n", "\n     "))
		summary = append(summary, results.FirstLine(verdict))
		if other[0] == reference {
			fasterReads = c.Decided && c.Ratio > 1
		}
		if other[1] == "origin" && prediction != "" {
			summary = append(summary, fmt.Sprintf("you predicted %s; it measured %s", prediction, results.Times(c.Ratio)))
		}
		speedups += fmt.Sprintf("speedup-%s-%s: %g\n", k.stage.Name, other[1], c.Ratio)
	}
	if prediction != "" {
		speedups += "predicted: " + prediction + "\n"
	}
	k.Fatal(os.WriteFile(filepath.Join(k.logs, "speedups.txt"), []byte(speedups), 0o644))
	if heldBy != nil {
		failure, note := heldVerdict(k.stage.Name, reference, heldBy[0], heldBy[1], fasterReads)
		if failure != "" {
			fmt.Printf("   reads at %s:\n     %s\n", row, strings.Join(summary, "\n     "))
			k.verdict("FAILED: " + failure)
			k.Exit(1)
		}
		if note != "" {
			summary = append(summary, note)
		}
	}
	if min := os.Getenv("USERPERF_PARALLEL_MIN"); min != "" {
		row += ", with USERPERF_PARALLEL_MIN=" + min
	}
	return "at " + row + ":\n" + strings.Join(summary, "\n")
}

// others are the stages of names but empty ones.
func others(names ...string) []string {
	return slices.DeleteFunc(names, func(s string) bool { return s == "" })
}

// round runs row once for each stage of list, into run.Dir/NAME+kind.txt, which the first round
// begins with header; each round another stage goes first.
func (k *check) round(run *harness.Run, n int, list []stages.Folder, row, benchtime, kind, header string) {
	for i := range list {
		s := list[(n+i)%len(list)]
		file := filepath.Join(run.Dir, s.Name+kind+".txt")
		if n == 1 {
			k.Fatal(os.WriteFile(file, []byte(header), 0o644))
		}
		run.Bench(n, s.Dir, pattern(row), benchtime, file, s.Name+kind)
	}
}

// keep copies the measurements in file to results/check/STAGE/speed-ROLE.txt, for scripts/handin, and reads them.
func (k *check) keep(file, role string) *results.File {
	kept := filepath.Join(k.logs, "speed-"+role+".txt")
	data, err := os.ReadFile(file)
	k.Fatal(cmp.Or(err, os.WriteFile(kept, data, 0o644)))
	return k.read(kept)
}

// read reads the measurements in file.
func (k *check) read(file string) *results.File {
	f, err := results.Read(file)
	k.must(err, "reading the measurements", file)
	return f
}
