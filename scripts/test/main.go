// Command test runs every check of the repository over every module of
// go.work, and stops at the first that fails.
//
// Usage:
//
//	go run ./scripts/test [--again]
//
// The checks, in order:
//
//  1. go vet.
//  2. go vet and go build of scripts/ for macOS (darwin/arm64), Windows
//     (windows/amd64) and Linux.
//  3. go test -race, which needs a C compiler (go env CC); scripttest and
//     crosscheck with -count=1, since they build code with go commands of
//     their own, which go test's cache does not see.
//  4. Every benchmark once (-benchtime 1x), so that none can rot.
//  5. go run ./scripts/report --check: the pages' figures against the code
//     they measured. It reports; it never fails the run.
//
// When every check passed, it writes how long it took to
// results/test/wall.txt, which go run ./scripts/report timings reads.
//
// The flag is:
//
//	--again
//		For a second run on another Go toolchain: leave out steps 2 and 5,
//		whose outcome does not depend on it, and say so.
//
// # Example
//
//	go run ./scripts/test
//	GOTOOLCHAIN=go1.27.3 go run ./scripts/test --again
package main

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"example.com/userperf/scripts/internal/harness"
	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/testevents"
)

// The packages of every module of the workspace, and of scripts/, share these prefixes.
const all, scripts = "example.com/userperf/...", "example.com/userperf/scripts/..."

func main() {
	c := harness.New("test")
	again := c.Flags.Bool("again", false, "")
	if len(c.Parse()) > 0 {
		c.Usage("takes no arguments (--help says what it runs)")
	}
	if *again {
		fmt.Println("== --again leaves out what the first run checked and the Go toolchain does not change:\n" +
			"   2. go vet and go build of scripts/ for other platforms; 5. the figures against the code they measured")
	}
	began, header := time.Now(), c.Header() // the wall time covers the whole command; the header, the code it checked
	c.Fatal(harness.RaceCompiler())
	say := func(what string) { fmt.Printf("== %s   (%s)\n", what, harness.Elapsed(began)) }
	phase := func(what string, work func() error) {
		say(what)
		c.Fatal(harness.Progress(func() string { return "still at " + what }, work))
	}
	phase("go vet "+all, func() error { return harness.Go("vet", all) })
	otherPlatforms := [][]string{{"GOOS=darwin", "GOARCH=arm64"}, {"GOOS=windows", "GOARCH=amd64"}, {"GOOS=linux"}}
	if *again {
		otherPlatforms = nil
	}
	for _, target := range otherPlatforms {
		phase("go vet and go build of "+scripts+" with "+strings.Join(target, " "), func() error {
			return cmp.Or(harness.GoWith(target, "vet", scripts), harness.GoWith(target, "build", scripts))
		})
	}
	list, err := harness.GoOutput("list", all)
	c.Fatal(err)
	// These two build code with go commands of their own, which go test's cache does not see, so they
	// run every time; another package's last pass is reused until its own code changes.
	fresh := []string{"example.com/userperf/scripts/scripttest", "example.com/userperf/scripts/crosscheck"}
	cached := slices.DeleteFunc(strings.Fields(list), func(p string) bool { return slices.Contains(fresh, p) })
	for _, run := range []struct {
		what     string
		packages int
		args     []string
	}{
		{"go test -race " + all + ", but for these two:", len(cached), append([]string{"-race"}, cached...)},
		{"go test -race -count=1 " + strings.Join(fresh, " "), len(fresh), append([]string{"-race", "-count=1"}, fresh...)},
		{"every benchmark once: go test -run '^$' -bench . -benchtime 1x " + all, len(cached) + len(fresh),
			[]string{"-run", "^$", "-bench", ".", "-benchtime", "1x", all}},
	} {
		say(run.what)
		events, err := testevents.Start(exec.Command("go", append([]string{"test", "-json"}, run.args...)...), io.Discard, os.Stdout)
		if err == nil {
			err = harness.Progress(func() string { return fmt.Sprintf("%d of %d packages done", events.Pkgs.Load(), run.packages) }, events.Wait)
		}
		if err != nil {
			c.Fatal(fmt.Errorf("%s: %w (output above)", run.what, err))
		}
	}
	verdict := "left out (--again)"
	if !*again {
		say("figures against the code they measured")
		verdict = "every figure measured the code at HEAD"
		if harness.Go("run", "./scripts/report", "--check") != nil { // it exits 1 if a figure is stale, 2 if it cannot tell
			verdict = "stale figures above: regenerate them before a release (not a test failure)"
		}
	}
	fmt.Printf("== all checks passed in %s; figures: %s\n", harness.Elapsed(began), verdict)
	wall := filepath.Join("results", "test", results.WallFile)
	c.Fatal(results.WriteWall(wall, header, time.Since(began)))
	fmt.Printf("== its wall time: %s (go run ./scripts/report timings puts it on the results page)\n", wall)
}
