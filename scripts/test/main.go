// Command test runs every check of the repository; the usage below says which.
package main

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"example.com/userperf/scripts/internal/harness"
	"example.com/userperf/scripts/internal/testevents"
)

const usage = `
test: every check of the repository, over every module of go.work: go run ./scripts/test
  1. go vet
  2. go vet and go build of scripts/ for macOS (darwin/arm64), Windows (windows/amd64) and Linux
  3. go test -race, which needs a C compiler (go env CC)
  4. every benchmark once (-benchtime 1x), so that none can rot
  5. go run ./scripts/report --check: the README's figures against the code they measured, never a failure
It stops at the first failure of 1 to 4.
`

// The packages of every module of the workspace, and of scripts/, share these prefixes.
const all, scripts = "example.com/userperf/...", "example.com/userperf/scripts/..."

func main() {
	c := harness.New("test", usage)
	if len(c.Parse()) > 0 {
		c.Usage("takes no arguments (--help says what it runs)")
	}
	c.Fatal(harness.RaceCompiler())
	start := time.Now()
	say := func(what string) { fmt.Printf("== %s   (%s)\n", what, harness.Elapsed(start)) }
	phase := func(what string, work func() error) {
		say(what)
		c.Fatal(harness.Progress(func() string { return "still at " + what }, work))
	}
	phase("go vet "+all, func() error { return harness.Go("vet", all) })
	for _, target := range [][]string{{"GOOS=darwin", "GOARCH=arm64"}, {"GOOS=windows", "GOARCH=amd64"}, {"GOOS=linux"}} {
		phase("go vet and go build of "+scripts+" with "+strings.Join(target, " "), func() error {
			return cmp.Or(harness.GoWith(target, "vet", scripts), harness.GoWith(target, "build", scripts))
		})
	}
	list, err := harness.GoOutput("list", all)
	c.Fatal(err)
	done := func(r *testevents.Run) string {
		return fmt.Sprintf("%d of %d packages done", r.Pkgs.Load(), len(strings.Fields(list)))
	}
	for _, args := range [][]string{{"-race", all}, {"-run", "^$", "-bench", ".", "-benchtime", "1x", all}} { // then every benchmark once
		what := "go test " + strings.Join(args, " ")
		say(what)
		if _, err := testevents.Start(exec.Command("go", append([]string{"test", "-json"}, args...)...), io.Discard, os.Stdout, done); err != nil {
			c.Fatal(fmt.Errorf("%s: %v (output above)", what, err))
		}
	}
	say("figures against the code they measured")
	verdict := "every figure measured the code at HEAD"
	if harness.Go("run", "./scripts/report", "--check") != nil { // it exits 1 if a figure is stale, 2 if it cannot tell
		verdict = "stale figures above: regenerate them before a release (not a test failure)"
	}
	fmt.Printf("== all checks passed in %s; figures: %s\n", harness.Elapsed(start), verdict)
}
