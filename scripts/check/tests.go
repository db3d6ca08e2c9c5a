package main

import (
	"cmp"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"example.com/userperf/scripts/internal/harness"
	"example.com/userperf/scripts/internal/testevents"
)

// testRun is one run of the stage's test binary.
type testRun struct {
	what      string   // what it runs, for the messages
	log       string   // the file of its whole output
	suites    []string // the tests it must have run
	env, args []string
	events    *testevents.Run
	err       error
	stuck     bool                           // stopped for using no CPU while no test ended
	live      atomic.Pointer[testevents.Run] // events while it runs
	shown     strings.Builder
}

// seenFile keeps how many tests the last check that passed its tests ended, for the next one's progress.
var seenFile = filepath.Join("results", "check", "tests-seen.txt")

// tests vets and builds the stage's tests while go vet runs, then runs them in four processes at
// once, since a test under -race keeps about one core busy: the shared suites at GOMAXPROCS 1, 3
// and 8, and the fuzz seed corpora with the stage's own tests.
func (k *check) tests() {
	k.next("go vet ./" + k.stage.Dir + ", and the build of its tests")
	build, underRace := []string{"test", "-c", "-race", "-o", k.binary, "./" + k.stage.Dir}, ", under -race"
	if err := harness.RaceCompiler(); err != nil { // a check with only go and git still checks
		fmt.Printf("check: %v; the tests run without it, and a data race goes unseen\n", err)
		build, underRace = slices.Delete(build, 2, 3), ""
	}
	vetted := make(chan error, 1)
	go func() { vetted <- harness.Go("vet", "./"+k.stage.Dir) }()
	built := harness.Progress(func() string { return "still building" }, func() error { return harness.Go(build...) })
	k.must(<-vetted, "go vet", "")
	k.must(built, "the build of its tests", "")

	var runs []*testRun
	for _, procs := range []string{"1", "3", "8"} {
		r := &testRun{what: "the conformance suite and the differential tests at GOMAXPROCS=" + procs, log: "shared-" + procs + ".log",
			suites: []string{"TestAPI", "TestDifferential"}, args: []string{"-test.run=^(TestAPI|TestDifferential)$", "-test.cpu=" + procs}}
		if procs == "8" { // the tests whose goroutines meet, where more of them can
			r.args[0] += "/^(ConcurrentReadersAndWriters|ManyShortCallsAtOnce|seed=.*)$"
		}
		if procs != "1" && os.Getenv("USERPERF_PARALLEL_MIN") == "" {
			// Stage 3's chunks start at 1,000 users, which few lists of the suites reach:
			// on more than one core they split every list here, so that a chunk's bug cannot hide.
			r.env = []string{"USERPERF_PARALLEL_MIN=2"}
		}
		runs = append(runs, r)
	}
	runs = append(runs, &testRun{what: "the fuzz seed corpora and the stage's own tests", log: "own.log",
		suites: []string{"FuzzDifferential"}, args: []string{"-test.skip=^(TestAPI|TestDifferential)$"}})
	k.next("the conformance suite (TestAPI) and the differential tests (TestDifferential) at GOMAXPROCS 1 and 3, " +
		"at 8 the differential and the concurrent tests, the fuzz seed corpora and the stage's own tests" + underRace)
	data, _ := os.ReadFile(seenFile) // none: no estimate yet
	seen, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	var wg sync.WaitGroup
	for _, r := range runs {
		wg.Go(func() { k.run(r) })
	}
	began := time.Now()
	k.Fatal(harness.Progress(func() string { return progress(ended(runs), seen, time.Since(began)) },
		func() error { wg.Wait(); return nil }))
	if !slices.ContainsFunc(runs, func(r *testRun) bool { return r.err != nil }) {
		os.WriteFile(seenFile, fmt.Appendf(nil, "%d\n", ended(runs)), 0o644) // only an estimate: none is fine
	}
	for _, r := range clearestFirst(runs) {
		k.report(r, runs)
	}
	fmt.Printf("   ok (%s so far)\n", harness.Elapsed(k.began))
}

// ended is how many tests the runs have ended so far.
func ended(runs []*testRun) int {
	n := 0
	for _, r := range runs {
		if events := r.live.Load(); events != nil {
			n += int(events.Tests.Load())
		}
	}
	return n
}

// progress says how far the tests are: done of about seen, the last check's count, and the time
// left at the pace so far; without a count, done alone.
func progress(done, seen int, took time.Duration) string {
	if seen <= 0 {
		return fmt.Sprintf("%d tests done (the next check says how many of all)", done)
	}
	line := fmt.Sprintf("%d of about %d tests done", done, seen)
	if done > 0 && done < seen {
		left := time.Duration(float64(took) * float64(seen-done) / float64(done))
		line += fmt.Sprintf(", about %s left", left.Round(time.Second))
	}
	return line
}

// run runs the test binary as r says, its output converted to events by go tool test2json. A run
// that ends no test while its process uses no CPU for a minute waits for something that never comes:
// it is stopped with a dump of its goroutines, as the wall-time limit does, only sooner.
func (k *check) run(r *testRun) {
	r.log = filepath.Join(k.logs, r.log)
	f, err := os.Create(r.log)
	if r.err = err; err != nil {
		return
	}
	defer f.Close()
	bin := exec.Command(k.binary, append([]string{"-test.v=test2json", "-test.count=1", "-test.failfast",
		"-test.timeout=" + k.timeout.String()}, r.args...)...)
	bin.Dir, bin.Env = k.stage.Dir, append(os.Environ(), r.env...)
	convert := exec.Command("go", "tool", "test2json", "-p", k.stage.Name)
	if convert.Stdin, r.err = bin.StdoutPipe(); r.err != nil {
		return
	}
	bin.Stderr, convert.Stderr = bin.Stdout, f
	if r.err = bin.Start(); r.err != nil {
		return
	}
	events, err := testevents.Start(convert, f, &r.shown)
	if err != nil { // nothing reads the tests' output: they would wait for ever
		bin.Process.Kill()
		r.err = cmp.Or(err, bin.Wait())
		return
	}
	r.live.Store(events)
	done := make(chan struct{})
	var watching sync.WaitGroup
	watching.Go(func() { r.stuck = stalled(bin.Process, events, done) })
	err = events.Wait()
	close(done)
	watching.Wait()
	r.events, r.err = events, cmp.Or(bin.Wait(), err)
}

// ownFailed is the first test of the stage's own files that failed in r, or "": a fuzz target's
// seeds are the shared suites', not the stage's.
func ownFailed(r *testRun) string {
	if r.events == nil || r.events.Raced || r.stuck {
		return ""
	}
	for _, e := range r.events.Failed {
		if top, _, _ := strings.Cut(e.Test, "/"); !strings.HasPrefix(top, "Fuzz") && top != "TestAPI" && top != "TestDifferential" {
			return e.Test
		}
	}
	return ""
}

// clearestFirst orders runs for the summary: a stage's own failed test first, since it tests one
// function with its own message, where the shared suites see that function through a request.
func clearestFirst(runs []*testRun) []*testRun {
	own := slices.IndexFunc(runs, func(r *testRun) bool { return ownFailed(r) != "" })
	if own <= 0 {
		return runs
	}
	return append([]*testRun{runs[own]}, slices.Delete(slices.Clone(runs), own, own+1)...)
}

// chunkHint says what differs when the shared suites fail at GOMAXPROCS 3 or 8 but pass at 1 in a
// stage that cuts its work by the cores, as stage 3's chunks do (its code asks runtime.GOMAXPROCS).
func (k *check) chunkHint(r *testRun, runs []*testRun) string {
	one := runs[0]
	if r == one || r.events == nil || r.stuck || one.err != nil || one.events.Raced || ownFailed(r) != "" || !slices.Contains(r.suites, "TestAPI") {
		return ""
	}
	files, _ := filepath.Glob(filepath.Join(k.stage.Dir, "*.go")) // a pattern without errors
	if !slices.ContainsFunc(files, func(f string) bool {
		data, _ := os.ReadFile(f) // an unreadable file is not the stage's chunks
		return !strings.HasSuffix(f, "_test.go") && strings.Contains(string(data), "runtime.GOMAXPROCS")
	}) {
		return ""
	}
	return "   It passed at GOMAXPROCS=1 and failed at more: what differs is the chunks (one per core, so one at 1)" +
		" and the goroutines at once. A body with another chunk's users where yours belong is a chunk's buffer given back" +
		" to the free list before the join copies it (often with no race reported: the next chunk of the same request" +
		" takes it, and the join waits for that chunk); a comma missing, or users out of order, is the join itself.\n"
}

// report ends the check if r failed, saying how: the failed tests' output (the first message and
// a race's two sides at its top), a summary, and after a timeout, what the goroutines waited for;
// and which of the other runs failed too.
func (k *check) report(r *testRun, runs []*testRun) {
	if r.err == nil {
		for _, suite := range r.suites {
			if !slices.ContainsFunc(r.events.Lines, func(e testevents.Event) bool { return e.Test == suite }) {
				k.must(fmt.Errorf("%s has no %s: its stage_test.go must call apitest.Run, apitest.Differential and apitest.FuzzDifferential"+
					" as stage0-linear/stage_test.go does", k.stage.Dir, suite), "the shared suites", r.log)
			}
		}
	}
	if r.err == nil && !r.events.Raced {
		return
	}
	if r.events == nil {
		k.must(r.err, r.what, r.log)
	}
	lines := strings.SplitAfter(r.shown.String(), "\n")
	fmt.Println(strings.Join(lines[:min(150, len(lines))], ""))
	whatFailed(r.events.Failed)
	for _, other := range runs {
		if other != r && (other.err != nil || other.events != nil && other.events.Raced) {
			fmt.Printf("   (also failed: %s, in %s)\n", other.what, filepath.ToSlash(other.log))
		}
	}
	fmt.Print(k.chunkHint(r, runs))
	what := r.what
	if test := ownFailed(r); test != "" {
		what = "the stage's own " + test + ", in " + what
	}
	if r.events.Raced {
		what = "the race detector, in " + what
	}
	// The line that says how the tests stopped, printed by the test that was running then.
	i := slices.IndexFunc(r.events.Lines, func(e testevents.Event) bool {
		return strings.HasPrefix(e.Output, "panic: ") || strings.HasPrefix(e.Output, "fatal error: ") || e.Output == "SIGQUIT: quit\n"
	})
	test := "a test"
	if i >= 0 {
		fmt.Printf("   %s", r.events.Lines[i].Output)
		test = cmp.Or(r.events.Lines[i].Test, test)
	}
	if r.stuck || i >= 0 && strings.HasPrefix(r.events.Lines[i].Output, "panic: test timed out") {
		stop := "tests that did not finish"
		if k.lockWaits(r.events.Lines, test, r.stuck) {
			stop = "a deadlock"
		}
		what = stop + ", in " + what
	}
	k.must(fmt.Errorf("   the whole output: %s", r.log), what, r.log)
}

// whatFailed lists the tests that failed, under the output that says how.
func whatFailed(failed []testevents.Event) {
	fmt.Println("-- what failed")
	for _, e := range failed {
		fmt.Printf("   --- FAIL: %s\n", e.Test)
	}
}

var (
	goroutine = regexp.MustCompile(`^goroutine \d+ [^[]*\[([^,\]]+)`) // after a SIGQUIT, gp= and m= come first
	lockWait  = regexp.MustCompile(`Mutex|sync\.Cond|WaitGroup|semacquire`)
)

// lockWaits counts the goroutines of a dump by the lock they wait for and where the stage asked,
// and reports whether any waits for one: only then is it a deadlock, not a slow machine.
func (k *check) lockWaits(dump []testevents.Event, test string, stuck bool) bool {
	waits := map[string]int{}
	lock, fn := "", ""
	for _, e := range dump {
		l := strings.TrimRight(e.Output, "\n")
		if m := goroutine.FindStringSubmatch(l); m != nil {
			lock = ""
			if lockWait.MatchString(m[1]) {
				lock = m[1]
			}
		} else if lock != "" && !strings.HasPrefix(l, "\t") {
			fn = filepath.Base(l[:max(0, strings.LastIndex(l, "("))])
		} else if lock != "" && strings.Contains(l, "/"+k.stage.Dir+"/") {
			waits[fmt.Sprintf("waiting for %s in %s (%s)", lock, fn, filepath.Base(strings.Fields(l)[0]))]++
			lock = ""
		}
	}
	why := fmt.Sprintf("ran over %s", k.timeout)
	if stuck {
		why = "used no CPU for a minute without ending a test"
	}
	if len(waits) == 0 {
		fmt.Printf("   %s %s, and no goroutine of the stage waits for a lock: not a deadlock, but a slow machine or a test waiting"+
			" for something else (a channel, the network).\n   On a busy machine: USERPERF_CHECK_TIMEOUT=30m go run ./scripts/check %s\n",
			test, why, k.stage.Dir)
		return false
	}
	fmt.Printf("   %s %s: a deadlock. Goroutines waiting for a lock, where the stage asked for it:\n", test, why)
	keys := slices.SortedFunc(maps.Keys(waits), func(a, b string) int { return cmp.Or(waits[b]-waits[a], strings.Compare(a, b)) })
	for _, key := range keys[:min(8, len(keys))] {
		s := ""
		if waits[key] > 1 {
			s = "s"
		}
		fmt.Printf("     %d goroutine%s %s\n", waits[key], s, key)
	}
	return true
}
