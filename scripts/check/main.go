// Command check gives one verdict on a stage; the usage below says how.
package main

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"example.com/userperf/scripts/internal/harness"
	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/stages"
	"example.com/userperf/scripts/internal/testevents"
)

const usage = `
check: one verdict on a stage, yours or the project's, in about two minutes.

  go run ./scripts/check mystage                         every check, then its speed against its origin and the reference
  go run ./scripts/check mystage --against stage5-materialized   another reference
  go run ./scripts/check mystage --from stage2-noclone   another origin
  go run ./scripts/check mystage --no-compare            correctness only

It runs go vet, then under the race detector the conformance suite and the differential tests (at
GOMAXPROCS 1, 3 and 8), the fuzz seed corpora and the stage's own tests, stopping at the first
failure; a test running over 60 s (USERPERF_CHECK_TIMEOUT) fails. Last, its speed: go run
./scripts/compare --rounds 6 --benchtime 100ms against its origin (--from, default the "// origin:"
line of its go.mod) and the exercise's reference (--against, default its solution or the next step).
It writes each step's output, the verdict and the speed results to results/check/STAGE/.
`

const row = "ListByRole/users=10000/matches=100"

var (
	c                       = harness.New("check", usage)
	dir, name, logs, binary string
	timeout                 = cmp.Or(os.Getenv("USERPERF_CHECK_TIMEOUT"), "60s") // a step takes seconds: a test running longer is stuck
	step, steps             = 0, 7
	underRace               = ", under -race" // "" where there is no C compiler for the race detector
	start                   = time.Now()

	sharedTest = regexp.MustCompile(`^(TestAPI|TestDifferential|Fuzz.*|Benchmark.*|Example.*)$`)
	message    = regexp.MustCompile(`^(\s+)[\w.-]+\.go:\d+: `)
	goroutine  = regexp.MustCompile(`^goroutine \d+ \[([^,\]]+)`)
	lockWait   = regexp.MustCompile(`Mutex|sync\.Cond|WaitGroup|semacquire`)
)

func main() {
	from, against := c.Flags.String("from", "", ""), c.Flags.String("against", "", "")
	noCompare := c.Flags.Bool("no-compare", false, "")
	args := c.Parse()
	if len(args) != 1 {
		c.Usage("name one stage to check: go run ./scripts/check STAGE (--help for more)")
	}
	dir = strings.TrimPrefix(filepath.ToSlash(args[0]), "./")
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		found, err := stages.Find(c.Root, args[0])
		if err != nil {
			c.Usage("no stage %s: give a stage's folder, such as mystage or stage1-index", args[0])
		}
		dir = found[0].Dir
	}
	if _, err := os.Stat(filepath.Join(dir, "main.go")); err != nil {
		c.Usage("%s has no main.go: it is not a stage", dir)
	}
	base, reference, err := stages.Against(c.Root, dir, *from)
	if *against != "" {
		reference = path.Base(*against)
		if _, err := stages.Find(c.Root, reference); err != nil {
			c.Usage("--against %s: no such stage", *against)
		}
	}
	if err != nil {
		c.Usage("cannot tell what to compare %s with: %v", args[0], err)
	}
	name, logs = path.Base(dir), filepath.Join("results", "check", path.Base(dir))
	os.RemoveAll(logs)
	tmp, err := os.MkdirTemp("", "userperf-check-")
	c.Fatal(cmp.Or(err, os.MkdirAll(logs, 0o755)))
	c.Cleanup(func() { os.RemoveAll(tmp) })
	binary = filepath.Join(tmp, "stage.test"+map[bool]string{true: ".exe"}[runtime.GOOS == "windows"]) // Windows runs no other
	if *noCompare {
		steps = 6
	}

	next("go vet ./" + dir)
	must(harness.Go("vet", "./"+dir), "go vet")
	build := []string{"test", "-c", "-race", "-o", binary, "./" + dir}
	if err := harness.RaceCompiler(); err != nil { // a check with only go and git still checks
		fmt.Printf("check: %v; the tests run without it, and a data race goes unseen\n", err)
		build, underRace = slices.Delete(build, 2, 3), ""
	}
	next("build its tests" + strings.Replace(underRace, ", under -race", " with the race detector", 1))
	must(harness.Progress(func() string { return "still building" },
		func() error { return harness.Go(build...) }), "the build of its tests")
	list := exec.Command(binary, "-test.list", ".*")
	list.Dir = dir
	out, err := list.Output()
	must(err, "the list of its tests")
	tests := strings.Fields(string(out))
	for _, t := range []string{"TestAPI", "TestDifferential", "FuzzDifferential"} {
		if !slices.Contains(tests, t) {
			failed("the shared suites: " + dir + " has no " + t + "; its stage_test.go must call apitest.Run, apitest.Differential and apitest.FuzzDifferential as stage0-linear/stage_test.go does")
		}
	}
	shared, once := []string{"1", "3", "8"}, []string{strconv.Itoa(runtime.GOMAXPROCS(0))}
	run("the conformance suite (TestAPI)", "conformance", shared, "-test.run=^TestAPI$")
	run("the differential tests (TestDifferential)", "differential", shared, "-test.run=^TestDifferential$")
	run("the fuzz seed corpora (Fuzz*)", "fuzz", once, "-test.run=^Fuzz")
	if slices.ContainsFunc(tests, func(t string) bool { return !sharedTest.MatchString(t) }) {
		run("the stage's own tests", "own", once, "-test.skip=^(TestAPI|TestDifferential|Fuzz.*)$")
	} else {
		next("the stage's own tests: none")
	}
	if *noCompare {
		verdict("passed (no speed comparison: --no-compare)")
		c.Exit(0)
	}
	speed(base, reference)
}

// speed is the last step: the stage's speed against its origin and the
// reference, measured by the compare command, whose results it keeps.
func speed(base, reference string) {
	names := slices.DeleteFunc([]string{base, name, reference}, func(s string) bool { return s == "" })
	args := append([]string{"run", "./scripts/compare", "--rounds", "6", "--benchtime", "100ms", "--bench", "^BenchmarkListByRole$"}, names...)
	line := []string{"go"}
	for _, a := range args {
		line = append(line, harness.Quote(a))
	}
	next("the speed: " + strings.Join(line, " "))
	log, err := os.Create(filepath.Join(logs, "compare.log"))
	c.Fatal(err)
	compare := exec.Command("go", args...)
	compare.Stdout = io.MultiWriter(os.Stdout, log)
	compare.Stderr = compare.Stdout
	must(compare.Run(), "the comparison (compare)")
	latest := func(s string) string { return filepath.Join("results", "compare", "latest", s+".txt") }
	for role, s := range map[string]string{"origin": base, "mine": name, "reference": reference} {
		if data, err := os.ReadFile(latest(s)); s != "" && err == nil {
			c.Fatal(os.WriteFile(filepath.Join(logs, "speed-"+role+".txt"), data, 0o644))
		}
	}
	read := func(s string) *results.File {
		f, err := results.Read(latest(s))
		must(err, "reading the comparison with "+s)
		return f
	}
	mine := read(name)
	again, _ := results.Read(latest(names[0] + ".again")) // compare's A/A label of its first stage
	var summary []string
	for _, s := range names {
		if s == name {
			continue
		}
		aa := map[bool]*results.File{true: again}[s == names[0]]
		verdict, err := results.Compare(read(s), aa, mine, row)
		must(err, "reading the comparison with "+s)
		summary = append(summary, verdict.Verdict(s))
	}
	if len(summary) == 0 {
		verdict("passed (nothing to compare it with)")
		return
	}
	note := row
	if min := os.Getenv("USERPERF_PARALLEL_MIN"); min != "" {
		note += ", USERPERF_PARALLEL_MIN=" + min
	}
	if strings.Contains(strings.Join(summary, ", "), "unstable") {
		fmt.Println("\ncheck: a figure was unstable: close other programs and check again, or run go run ./scripts/compare " +
			"--rounds 20 on the same stages (MEASURING.md says what each label means)")
	}
	verdict("passed: " + strings.Join(summary, ", ") + " (" + note + ")")
}

// run runs the race-enabled test binary in the stage's folder once at each
// GOMAXPROCS of procs, its whole output kept in logs/log.log. At a failure
// it shows what failed and stops with the verdict what.
func run(what, log string, procs []string, args ...string) {
	next(what + underRace + map[bool]string{true: ", at GOMAXPROCS " + strings.Join(procs, ", ")}[len(procs) > 1])
	logFile := filepath.Join(logs, log+".log")
	f, err := os.Create(logFile)
	c.Fatal(err)
	defer f.Close()
	for _, p := range procs {
		cmd := exec.Command("go", append([]string{"tool", "test2json", "-p", name, binary, "-test.v=test2json", "-test.count=1",
			"-test.failfast", "-test.timeout=" + timeout, "-test.cpu=" + p}, args...)...)
		cmd.Dir, cmd.Stderr = dir, f
		if p != "1" && os.Getenv("USERPERF_PARALLEL_MIN") == "" {
			// Stage 3's chunks start at 10,000 users, more than any list of the suites holds:
			// on more than one core they split every list here, so that a chunk's bug cannot hide.
			cmd.Env = append(os.Environ(), "USERPERF_PARALLEL_MIN=2")
		}
		var shown bytes.Buffer
		tests, err := testevents.Start(cmd, f, &shown, func(r *testevents.Run) string {
			return fmt.Sprintf("GOMAXPROCS=%s: %d tests done", p, r.Tests.Load())
		})
		if err == nil && !raced(tests) {
			continue
		}
		lines := strings.SplitAfter(shown.String(), "\n")
		if len(lines) > 150 {
			fmt.Printf("   ... the first %d of %d lines of what failed are in %s\n", len(lines)-150, len(lines), logFile)
			lines = lines[len(lines)-150:]
		}
		fmt.Print(strings.Join(lines, ""))
		summarize(tests, logFile)
		if raced(tests) {
			what = "the race detector, in " + what
		}
		failed(what + map[bool]string{true: " at GOMAXPROCS=" + p}[len(procs) > 1])
	}
	fmt.Printf("   ok (%s so far)\n", harness.Elapsed(start))
}

func next(what string) { step++; fmt.Printf("== check %d/%d: %s\n", step, steps, what) }

// verdict prints the last line, and keeps it for scripts/handin.
func verdict(text string) {
	fmt.Printf("\ncheck: %s %s\n", name, text)
	c.Fatal(os.WriteFile(filepath.Join(logs, "verdict.txt"), []byte(text+"\n"), 0o644))
}

func failed(what string) { verdict("FAILED: " + what + ", see above"); c.Exit(1) }

func must(err error, what string) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		failed(what)
	}
}

// raced reports whether the race detector spoke: a race in a goroutine
// that outlives its test fails no test.
func raced(run *testevents.Run) bool {
	return slices.ContainsFunc(run.Lines, func(e testevents.Event) bool { return e.Output == "WARNING: DATA RACE\n" })
}

// summarize writes what failed in run: the failing tests, a test's first
// message with the lines under it (the request it sent), both sides of the
// first data race, the first panic, and after a timeout the goroutines that
// wait for a lock.
func summarize(run *testevents.Run, log string) {
	fmt.Printf("\n-- what failed (the whole output: %s)\n", log)
	for _, e := range run.Failed {
		fmt.Printf("   --- FAIL: %s\n", e.Test)
	}
	text := make([]string, len(run.Lines))
	for i, e := range run.Lines {
		text[i] = strings.TrimRight(e.Output, "\n")
	}
	if i := slices.IndexFunc(run.Lines, func(e testevents.Event) bool { return e.Test != "" && message.MatchString(e.Output) }); i >= 0 {
		indent := len(message.FindStringSubmatch(text[i])[1])
		for n, l := range text[i:min(len(text), i+14)] {
			if n > 0 && len(l)-len(strings.TrimLeft(l, " \t")) <= indent {
				break
			}
			fmt.Printf("   %s\n", l[indent:])
		}
	}
	// Each side of the race is an access and its stack: its first three frames
	// show where, up to the stacks of the goroutines' creation.
	if i := slices.Index(text, "WARNING: DATA RACE"); i >= 0 {
		frame := 0
		for _, l := range text[i:] {
			if strings.HasPrefix(l, "Goroutine ") || strings.HasPrefix(l, "=====") {
				break
			} else if frame++; !strings.HasPrefix(l, " ") {
				frame = 0
			}
			if l != "" && frame <= 6 {
				fmt.Printf("   %s\n", l)
			}
		}
	}
	if i := slices.IndexFunc(text, func(l string) bool { return strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ") }); i >= 0 {
		fmt.Printf("   %s\n", text[i])
		if strings.HasPrefix(text[i], "panic: test timed out") {
			lockWaits(text, run.Lines[i].Test)
		}
	}
}

// lockWaits names, after a test timed out, the goroutines that wait for a
// lock, by the lock and the line of the stage's code that asked for it: a
// deadlock, when nothing else runs.
func lockWaits(dump []string, test string) {
	fmt.Printf("   %s ran over %s: usually a deadlock. Goroutines waiting for a lock, where the stage asked for it:\n", cmp.Or(test, "a test"), timeout)
	waits := map[string]int{}
	lock, fn := "", ""
	for _, l := range dump {
		if m := goroutine.FindStringSubmatch(l); m != nil {
			lock = map[bool]string{true: m[1]}[lockWait.MatchString(m[1])]
		} else if lock != "" && !strings.HasPrefix(l, "\t") {
			fn = path.Base(l[:max(0, strings.LastIndex(l, "("))])
		} else if lock != "" && strings.Contains(l, "/"+dir+"/") {
			waits[fmt.Sprintf("waiting for %s in %s (%s)", lock, fn, path.Base(strings.Fields(l)[0]))]++
			lock = ""
		}
	}
	keys := slices.SortedFunc(maps.Keys(waits), func(a, b string) int { return cmp.Or(waits[b]-waits[a], strings.Compare(a, b)) })
	for _, k := range keys[:min(8, len(keys))] {
		fmt.Printf("     %d %s %s\n", waits[k], map[bool]string{true: "goroutine", false: "goroutines"}[waits[k] == 1], k)
	}
	fmt.Printf("   (on a slow machine that is not deadlocked: USERPERF_CHECK_TIMEOUT=5m go run ./scripts/check %s)\n", dir)
}
