// Command check gives one verdict on a stage; the usage below says how.
package main

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"example.com/userperf/scripts/internal/harness"
	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/stages"
	"example.com/userperf/scripts/internal/testevents"
)

const usage = `
check: one verdict on a stage, yours or the project's, in a minute or two.

  go run ./scripts/check mystage                          every check, then its speed against its origin and the reference
  go run ./scripts/check mystage --against stage5-materialized   another reference
  go run ./scripts/check mystage --from stage2-noclone    another origin
  go run ./scripts/check mystage --no-compare             correctness only (half the time)

STAGE is a stage's name or folder (mystage, workshop/solutions/quest6-cache-fixed). The checks, in order,
each stopping the run at its first failure, every test under the race detector:
  1. go vet
  2. the build of its tests with -race
  3. the conformance suite, TestAPI: statuses, headers, exact bytes; writes then reads; concurrent
     readers and writers, where the race detector sees what the stage does not lock
  4. the differential tests, TestDifferential: random sequences against the reference model, by seed
     (3 and 4 run at GOMAXPROCS 1, 3 and 8: a stage's chunks and goroutines differ with the cores)
  5. the fuzz targets' seed corpora, as a plain go test runs them
  6. the stage's own tests, if it has any
  7. the speed: go run ./scripts/compare --rounds 6 --benchtime 100ms --bench '^BenchmarkListByRole$'
     ORIGIN STAGE REFERENCE
A test still running after 60 s (USERPERF_CHECK_TIMEOUT) fails its step, with the goroutines that wait
for a lock and the lines of the stage that asked for it: a deadlock is reported in about a minute.
It ends with one line: "check: STAGE passed: ..." with the speed-ups, or "check: STAGE FAILED: <check>"
under the end of the failing output, the failing test and its first message (the request that went
wrong). Every step's whole output, the verdict and the results of the speed step are kept in
results/check/STAGE/, where go run ./scripts/handin finds them.

ORIGIN is the stage STAGE was copied from (--from, or the "// origin:" line new-stage writes in its
go.mod); REFERENCE solves the exercise: the solution in workshop/solutions/ whose origin is ORIGIN
(stage3-parallel -> ex4-plain-append, stage4-append -> ex5-plain-encode-once, workshop/quest6-cache
-> quest6-cache-fixed), else the next step by number (stage1-index -> stage2-noclone), or --against.
The project's own stages are compared with stage0-linear alone. The line quotes the medians of
ListByRole/users=10000/matches=100: "as fast as" when benchstat finds no significant difference; six
short rounds are noisy, so quote a longer compare run.
`

// row is the benchmark that the verdict quotes.
const row = "ListByRole/users=10000/matches=100"

// check is one run of the command on one stage.
type check struct {
	*harness.Cmd
	dir, name, logs, binary, timeout string
	step, steps                      int
	start                            time.Time
}

func main() {
	c := &check{Cmd: harness.New("check", usage), start: time.Now()}
	from := c.Flags.String("from", "", "")
	against := c.Flags.String("against", "", "")
	noCompare := c.Flags.Bool("no-compare", false, "")
	args := c.Parse()
	if len(args) != 1 {
		c.Usage("name one stage to check: go run ./scripts/check STAGE (--help for more)")
	}
	c.dir = strings.TrimPrefix(filepath.ToSlash(args[0]), "./")
	if _, err := os.Stat(filepath.Join(c.dir, "go.mod")); err != nil {
		found, err := stages.Find(c.Root, args[0])
		if err != nil {
			c.Usage("no stage %s: give a stage's folder, such as mystage or stage1-index", args[0])
		}
		c.dir = found[0].Dir
	}
	c.name = path.Base(c.dir)
	if _, err := os.Stat(filepath.Join(c.dir, "main.go")); err != nil {
		c.Usage("%s has no main.go: it is not a stage", c.dir)
	}
	base, reference, err := stages.Against(c.Root, c.dir, *from)
	if err != nil && !*noCompare {
		c.Usage("cannot tell what to compare %s with: %v", args[0], err)
	}
	if *against != "" {
		reference = path.Base(*against)
		if _, err := stages.Find(c.Root, reference); err != nil && !*noCompare {
			c.Usage("--against %s: no such stage", *against)
		}
	}

	c.timeout = cmp.Or(os.Getenv("USERPERF_CHECK_TIMEOUT"), "60s") // each step takes seconds: a test running longer is stuck
	c.logs = filepath.Join("results", "check", c.name)
	os.RemoveAll(c.logs)
	c.Fatal(os.MkdirAll(c.logs, 0o755))
	tmp, err := os.MkdirTemp("", "userperf-check-")
	c.Fatal(err)
	c.Cleanup(func() { os.RemoveAll(tmp) })
	c.binary = filepath.Join(tmp, "stage.test")
	c.steps = map[bool]int{true: 6, false: 7}[*noCompare]

	c.next("go vet ./" + c.dir)
	c.must(harness.Go("vet", "./"+c.dir), "go vet")
	c.next("build its tests with the race detector")
	c.must(harness.Progress(func() string { return "still building" },
		func() error { return harness.Go("test", "-c", "-race", "-o", c.binary, "./"+c.dir) }), "the build of its tests")
	list := exec.Command(c.binary, "-test.list", ".*")
	list.Dir = c.dir
	out, err := list.Output()
	c.must(err, "listing its tests")
	tests := strings.Fields(string(out))
	for _, t := range []string{"TestAPI", "TestDifferential", "FuzzDifferential"} {
		if !slices.Contains(tests, t) {
			c.failed("the shared suites: " + c.dir + " has no " + t + "; its stage_test.go must call apitest.Run, apitest.Differential and apitest.FuzzDifferential as stage0-linear/stage_test.go does")
		}
	}
	shared := []string{"1", "3", "8"}
	c.next("the conformance suite (TestAPI), under -race, at GOMAXPROCS 1, 3 and 8")
	c.tests("the conformance suite (TestAPI)", "conformance", shared, "-test.run", "^TestAPI$")
	c.next("the differential tests (TestDifferential), under -race, at GOMAXPROCS 1, 3 and 8")
	c.tests("the differential tests (TestDifferential)", "differential", shared, "-test.run", "^TestDifferential$")
	c.next("the fuzz seed corpora (Fuzz*), under -race")
	c.tests("the fuzz seed corpora", "fuzz", []string{""}, "-test.run", "^Fuzz")
	c.next("the stage's own tests, under -race")
	if slices.ContainsFunc(tests, func(t string) bool { return !ownTest.MatchString(t) }) {
		c.tests("the stage's own tests", "own", []string{""}, "-test.skip", "^(TestAPI|TestDifferential|Fuzz.*)$")
	} else {
		fmt.Println("   none")
	}
	if *noCompare {
		c.verdict("passed (no speed comparison: --no-compare)")
		c.Exit(0)
	}
	c.speed(base, reference)
}

// speed is the last step: the stage against its origin and the reference.
func (c *check) speed(base, reference string) {
	names := slices.DeleteFunc([]string{base, c.name, reference}, func(s string) bool { return s == "" })
	args := []string{"--rounds", "6", "--benchtime", "100ms", "--bench", "^BenchmarkListByRole$"}
	var line []string
	for _, a := range append(args, names...) {
		line = append(line, harness.Quote(a))
	}
	c.next("the speed: go run ./scripts/compare " + strings.Join(line, " "))
	log, err := os.Create(filepath.Join(c.logs, "compare.log"))
	c.Fatal(err)
	compare := exec.Command("go", append(append([]string{"run", "./scripts/compare"}, args...), names...)...)
	compare.Stdout = io.MultiWriter(os.Stdout, log)
	compare.Stderr = compare.Stdout
	c.must(compare.Run(), "the comparison (compare)")
	latest := func(s string) string { return filepath.Join("results", "compare", "latest", s+".txt") }
	var summary []string
	for _, s := range []string{base, reference} {
		if s != "" {
			line, err := results.Ratio(row, latest(s), latest(c.name))
			c.must(err, "reading the comparison with "+s)
			summary = append(summary, line)
		}
	}
	for role, s := range map[string]string{"origin": base, "mine": c.name, "reference": reference} {
		if data, err := os.ReadFile(latest(s)); s != "" && err == nil { // kept for scripts/handin
			c.Fatal(os.WriteFile(filepath.Join(c.logs, "speed-"+role+".txt"), data, 0o644))
		}
	}
	if len(summary) == 0 {
		c.verdict("passed (nothing to compare it with)")
	} else if min := os.Getenv("USERPERF_PARALLEL_MIN"); min != "" {
		c.verdict(fmt.Sprintf("passed: %s (%s, USERPERF_PARALLEL_MIN=%s)", strings.Join(summary, ", "), row, min))
	} else {
		c.verdict(fmt.Sprintf("passed: %s (%s)", strings.Join(summary, ", "), row))
	}
}

// tests runs the race-enabled test binary in the stage's folder, once per
// GOMAXPROCS in procs ("" for the default), its whole output kept in
// logs/name.log; at a failure it shows the end of what went wrong and what
// failed, and stops with the verdict what.
func (c *check) tests(what, name string, procs []string, args ...string) {
	logFile := filepath.Join(c.logs, name+".log")
	log, err := os.Create(logFile)
	c.Fatal(err)
	defer log.Close()
	for _, p := range procs {
		flags := append([]string{"tool", "test2json", "-p", c.name, c.binary, "-test.v=test2json", "-test.count=1",
			"-test.failfast", "-test.timeout=" + c.timeout}, args...)
		if p != "" {
			flags = append(flags, "-test.cpu="+p)
		}
		cmd := exec.Command("go", flags...)
		cmd.Dir, cmd.Stderr = c.dir, log
		events, err := cmd.StdoutPipe()
		c.Fatal(err)
		c.Fatal(cmd.Start())
		var run testevents.Run
		var shown bytes.Buffer
		err = harness.Progress(func() string {
			tests, _ := run.Ended()
			return fmt.Sprintf("%d tests done", tests)
		}, func() error { return run.Read(events, log, &shown) })
		if err = cmp.Or(err, cmd.Wait()); err == nil && !raced(&run) {
			continue
		}
		lines := strings.SplitAfter(shown.String(), "\n")
		if len(lines) > 150 {
			fmt.Printf("   ... the first %d of %d lines of what failed are in %s\n", len(lines)-150, len(lines), logFile)
			lines = lines[len(lines)-150:]
		}
		fmt.Print(strings.Join(lines, ""))
		c.summarize(os.Stdout, &run, logFile)
		if raced(&run) {
			what = "the race detector, in " + what
		}
		if p != "" {
			what += " at GOMAXPROCS=" + p
		}
		c.failed(what)
	}
	fmt.Printf("   ok (%s so far)\n", harness.Elapsed(c.start))
}

// next announces the next step.
func (c *check) next(what string) {
	c.step++
	fmt.Printf("== check %d/%d: %s\n", c.step, c.steps, what)
}

// verdict prints the last line, and keeps it for scripts/handin.
func (c *check) verdict(text string) {
	fmt.Printf("\ncheck: %s %s\n", c.name, text)
	c.Fatal(os.WriteFile(filepath.Join(c.logs, "verdict.txt"), []byte(text+"\n"), 0o644))
}

// must stops with the verdict that what failed if err is not nil.
func (c *check) must(err error, what string) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		c.failed(what)
	}
}

func (c *check) failed(what string) {
	c.verdict("FAILED: " + what + ", see above")
	c.Exit(1)
}
