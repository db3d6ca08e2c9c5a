// Command check gives one verdict on a stage; the usage below says how.
package main

import (
	"cmp"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"

	"example.com/userperf/scripts/internal/harness"
	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/stages"
	"example.com/userperf/scripts/internal/testevents"
)

const usage = `
check: one verdict on a stage, yours or the project's, in about two minutes.

  go run ./scripts/check mystage [--no-compare] [--from ORIGIN] [--against REFERENCE]

go vet; under -race, the conformance suite and the differential tests (GOMAXPROCS 1, 3 and 8), the fuzz
seed corpora and the stage's own tests, up to the first failure or a test over 60 s (USERPERF_CHECK_TIMEOUT);
then go run ./scripts/compare --rounds 6 --benchtime 100ms against its origin (default: its go.mod's
"// origin:") and the exercise's reference (default: its solution, else the next step). Each test step's
output, the speeds, the speed-ups and the verdict: results/check/STAGE/.
`

const row = results.Headline

var (
	c            = harness.New("check", usage)
	stage        stages.Stage
	logs, binary string
	timeout      = cmp.Or(os.Getenv("USERPERF_CHECK_TIMEOUT"), "60s") // a test takes seconds: one running longer is stuck
	step         = 0
	underRace    = ", under -race" // "" where there is no C compiler for the race detector
	start        = time.Now()
	goroutine    = regexp.MustCompile(`^goroutine \d+ \[([^,\]]+)`)
	lockWait     = regexp.MustCompile(`Mutex|sync\.Cond|WaitGroup|semacquire`)
)

func main() {
	from, against := c.Flags.String("from", "", ""), c.Flags.String("against", "", "")
	noCompare := c.Flags.Bool("no-compare", false, "")
	args := c.Parse()
	if len(args) != 1 {
		c.Usage("name one stage to check: go run ./scripts/check STAGE (--help for more)")
	}
	found, err := stages.Find(c.Root, filepath.Base(args[0]))
	if err != nil {
		c.Usage("%v: give a stage's folder, such as mystage or stage1-index", err)
	}
	stage = found[0]
	base, reference, err := stages.Against(c.Root, stage.Dir, *from)
	exercises := reference // the exercise's own reference, which the room's median counts
	if *against != "" {
		reference = filepath.Base(*against)
		_, err = stages.Find(c.Root, reference)
	}
	if err != nil {
		c.Usage("cannot tell what to compare %s with: %v", args[0], err)
	}
	logs = filepath.Join("results", "check", stage.Name)
	c.Fatal(cmp.Or(os.RemoveAll(logs), os.MkdirAll(logs, 0o755)))
	binary = filepath.Join(c.Root, logs, "stage.test"+map[bool]string{true: ".exe"}[runtime.GOOS == "windows"]) // Windows runs no other
	c.Cleanup(func() { os.Remove(binary) })

	next("go vet ./" + stage.Dir)
	must(harness.Go("vet", "./"+stage.Dir), "go vet")
	build, with := []string{"test", "-c", "-race", "-o", binary, "./" + stage.Dir}, " with the race detector"
	if err := harness.RaceCompiler(); err != nil { // a check with only go and git still checks
		fmt.Printf("check: %v; the tests run without it, and a data race goes unseen\n", err)
		build, underRace, with = slices.Delete(build, 2, 3), "", ""
	}
	next("build its tests" + with)
	must(harness.Progress(func() string { return "still building" }, func() error { return harness.Go(build...) }), "the build of its tests")
	shared, once := []string{"1", "3", "8"}, []string{fmt.Sprint(runtime.GOMAXPROCS(0))}
	run("the conformance suite (TestAPI)", "conformance", "TestAPI", shared, "-test.run=^TestAPI$")
	run("the differential tests (TestDifferential)", "differential", "TestDifferential", shared, "-test.run=^TestDifferential$")
	run("the fuzz seed corpora (Fuzz*)", "fuzz", "FuzzDifferential", once, "-test.run=^Fuzz")
	run("the stage's own tests", "own", "", once, "-test.skip=^(TestAPI|TestDifferential|Fuzz.*)$")
	if *noCompare {
		next("the speed: not measured (--no-compare)")
		verdict("passed (no speed comparison: --no-compare)")
		c.Exit(0) // which removes the test binary
	}

	// The speed: the stage against its origin and its reference.
	args = append([]string{"run", "./scripts/compare", "--rounds", "6", "--benchtime", "100ms", "--bench", "^BenchmarkListByRole$"},
		slices.DeleteFunc([]string{base, stage.Name, reference}, func(s string) bool { return s == "" })...)
	line := "the speed: go"
	for _, a := range args {
		line += " " + harness.Quote(a)
	}
	next(line)
	must(harness.Go(args...), "the comparison (compare)")
	mine := keep(stage.Name, "mine")
	again, _ := results.Read(filepath.Join("results", "compare", "latest", base+".again.txt")) // compare's A/A label of its first stage
	var summary []string
	speedups := "" // for the room, through scripts/handin
	for _, other := range [][2]string{{base, "origin"}, {reference, map[bool]string{true: "reference", false: "vs-" + reference}[reference == exercises]}} {
		if other[0] != "" {
			verdict, err := results.Compare(keep(other[0], other[1]), again, mine, row)
			must(err, "reading the comparison with "+other[0])
			summary = append(summary, verdict.Verdict(other[0]))
			speedups += fmt.Sprintf("speedup-%s-%s: %g\n", stage.Name, other[1], verdict.Ratio)
		}
		again = nil // the reference has no A/A label of its own
	}
	c.Fatal(os.WriteFile(filepath.Join(logs, "speedups.txt"), []byte(speedups), 0o644))
	min := os.Getenv("USERPERF_PARALLEL_MIN")
	verdict("passed: " + cmp.Or(strings.Join(summary, ", "), "nothing to compare it with") +
		" (" + row + map[bool]string{true: ", USERPERF_PARALLEL_MIN=" + min}[min != ""] + ")")
	c.Exit(0)
}

// keep copies compare's results of a stage to speed-ROLE.txt, for scripts/handin, and reads them.
func keep(name, role string) *results.File {
	data, err := os.ReadFile(filepath.Join("results", "compare", "latest", name+".txt"))
	must(err, "reading the comparison with "+name)
	kept := filepath.Join(logs, "speed-"+role+".txt")
	c.Fatal(os.WriteFile(kept, data, 0o644))
	f, err := results.Read(kept)
	must(err, "reading the comparison with "+name)
	return f
}

// run runs the test binary at each of procs, fails if a test failed, a race was seen, or suite did not run.
func run(what, log, suite string, procs []string, args ...string) {
	next(what + underRace + map[bool]string{true: ", at GOMAXPROCS " + strings.Join(procs, ", ")}[len(procs) > 1])
	logFile := filepath.Join(logs, log+".log")
	f, err := os.Create(logFile)
	c.Fatal(err)
	defer f.Close()
	for _, p := range procs {
		cmd := exec.Command("go", append([]string{"tool", "test2json", "-p", stage.Name, binary, "-test.v=test2json", "-test.count=1",
			"-test.failfast", "-test.timeout=" + timeout, "-test.cpu=" + p}, args...)...)
		cmd.Dir, cmd.Stderr = stage.Dir, f
		if p != "1" && os.Getenv("USERPERF_PARALLEL_MIN") == "" {
			// Stage 3's chunks start at 10,000 users, more than any list of the suites holds:
			// on more than one core they split every list here, so that a chunk's bug cannot hide.
			cmd.Env = append(os.Environ(), "USERPERF_PARALLEL_MIN=2")
		}
		var shown strings.Builder
		tests, err := testevents.Start(cmd, f, &shown, func(r *testevents.Run) string {
			return fmt.Sprintf("GOMAXPROCS=%s: %d tests done", p, r.Tests.Load())
		})
		if suite != "" && err == nil && !slices.ContainsFunc(tests.Lines, func(e testevents.Event) bool { return e.Test == suite }) {
			must(fmt.Errorf("%s has no %s: its stage_test.go must call apitest.Run, apitest.Differential and apitest.FuzzDifferential"+
				" as stage0-linear/stage_test.go does", stage.Dir, suite), "the shared suites")
		}
		if err == nil && !tests.Raced {
			continue
		}
		// The failed tests' output (the first message and the race's two sides at its top), then a summary.
		lines := strings.SplitAfter(shown.String(), "\n")
		fmt.Printf("%s\n-- what failed\n", strings.Join(lines[:min(150, len(lines))], ""))
		for _, e := range tests.Failed {
			fmt.Printf("   --- FAIL: %s\n", e.Test)
		}
		if i := slices.IndexFunc(tests.Lines, func(e testevents.Event) bool {
			return strings.HasPrefix(e.Output, "panic: ") || strings.HasPrefix(e.Output, "fatal error: ")
		}); i >= 0 {
			fmt.Printf("   %s", tests.Lines[i].Output)
			if strings.HasPrefix(tests.Lines[i].Output, "panic: test timed out") {
				lockWaits(tests.Lines, tests.Lines[i].Test)
			}
		}
		must(fmt.Errorf("   the whole output: %s", logFile),
			map[bool]string{true: "the race detector, in "}[tests.Raced]+what+map[bool]string{true: " at GOMAXPROCS=" + p}[len(procs) > 1])
	}
	fmt.Printf("   ok (%s so far)\n", harness.Elapsed(start))
}

// lockWaits counts the goroutines of a timeout's dump by the lock they wait for and where the stage asked.
func lockWaits(dump []testevents.Event, test string) {
	fmt.Printf("   %s ran over %s: usually a deadlock. Goroutines waiting for a lock, where the stage asked for it:\n", cmp.Or(test, "a test"), timeout)
	waits := map[string]int{}
	lock, fn := "", ""
	for _, e := range dump {
		l := strings.TrimRight(e.Output, "\n")
		if m := goroutine.FindStringSubmatch(l); m != nil {
			lock = map[bool]string{true: m[1]}[lockWait.MatchString(m[1])]
		} else if lock != "" && !strings.HasPrefix(l, "\t") {
			fn = filepath.Base(l[:max(0, strings.LastIndex(l, "("))])
		} else if lock != "" && strings.Contains(l, "/"+stage.Dir+"/") {
			waits[fmt.Sprintf("waiting for %s in %s (%s)", lock, fn, filepath.Base(strings.Fields(l)[0]))]++
			lock = ""
		}
	}
	keys := slices.SortedFunc(maps.Keys(waits), func(a, b string) int { return cmp.Or(waits[b]-waits[a], strings.Compare(a, b)) })
	for _, k := range keys[:min(8, len(keys))] {
		fmt.Printf("     %d goroutine%s %s\n", waits[k], map[bool]string{true: "s"}[waits[k] > 1], k)
	}
	fmt.Printf("   (on a slow machine that is not deadlocked: USERPERF_CHECK_TIMEOUT=5m go run ./scripts/check %s)\n", stage.Dir)
}

func next(what string) {
	step++
	fmt.Printf("== check %d/7: %s\n", step, what)
}

// verdict prints the last line, and keeps it for scripts/handin.
func verdict(text string) {
	fmt.Printf("\ncheck: %s %s\n", stage.Name, text)
	c.Fatal(os.WriteFile(filepath.Join(logs, "verdict.txt"), []byte(text+"\n"), 0o644))
}

// must ends the check with the verdict "FAILED: what" if err, which it prints, is not nil.
func must(err error, what string) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		verdict("FAILED: " + what + ", see above")
		c.Exit(1)
	}
}
