// Command test runs every check of the repository; the usage below says which.
package main

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"example.com/userperf/scripts/internal/harness"
	"example.com/userperf/scripts/internal/provenance"
	"example.com/userperf/scripts/internal/testevents"
)

const usage = `
test: every check of the repository, over every module of go.work.

  go run ./scripts/test

  1. go vet
  2. go vet and go build of scripts/ for macOS (darwin/arm64), Windows (windows/amd64) and Linux:
     the commands run wherever Go runs
  3. go test -race: the conformance suite, the differential tests, the seed corpora of the fuzz
     targets, and the unit tests
  4. every benchmark once (-benchtime 1x), so that none can rot
  5. the README's figures against the code they measured (go run ./scripts/report --check);
     printed, never a failure (code changes before it is measured)
Exits non-zero on the first failure of 1 to 4. The race detector needs a C compiler (go env CC) on
Linux and Windows; without one, it says so and how to get one before it starts. Each phase says
every 15 seconds how far it is.
`

// all is every package of every module in the workspace: they share this prefix.
const all = "example.com/userperf/..."

func main() {
	c := harness.New("test", usage)
	if len(c.Parse()) > 0 {
		c.Usage("takes no arguments (--help says what it runs)")
	}
	if missing := compilerMissing(); missing != "" {
		c.Fatal(fmt.Errorf("%s", missing))
	}
	start := time.Now()
	phase := func(what string) { fmt.Printf("== %s   (%s)\n", what, harness.Elapsed(start)) }
	still := func(what string) func() string { return func() string { return "still " + what } }
	phase("go vet " + all)
	c.Fatal(harness.Progress(still("vetting"), func() error { return harness.Go("vet", all) }))
	for _, target := range []string{"GOOS=darwin GOARCH=arm64", "GOOS=windows GOARCH=amd64", "GOOS=linux"} {
		phase("go vet and go build of example.com/userperf/scripts/... with " + target)
		c.Fatal(harness.Progress(still("vetting and building"), func() error {
			return cmp.Or(goWith(target, "vet", "example.com/userperf/scripts/..."), goWith(target, "build", "example.com/userperf/scripts/..."))
		}))
	}
	list, err := harness.GoOutput("list", all)
	c.Fatal(err)
	packages := len(strings.Fields(list))
	phase("go test -race " + all)
	c.Fatal(goTest(packages, "-race", all))
	phase("every benchmark once")
	c.Fatal(goTest(packages, "-run", "^$", "-bench", ".", "-benchtime", "1x", all))
	phase("figures against the code they measured")
	verdict := "every figure measured the code at HEAD"
	fresh, err := provenance.Check(os.Stdout, ".")
	if err != nil {
		fmt.Println("   ", err)
	}
	if err != nil || !fresh {
		verdict = "stale figures above: regenerate them before a release (not a test failure)"
	}
	fmt.Printf("== all checks passed in %s; figures: %s\n", harness.Elapsed(start), verdict)
}

// goWith runs the go command with args and the environment variables of
// env, "KEY=value" separated by spaces.
func goWith(env string, args ...string) error {
	cmd := exec.Command("go", args...)
	cmd.Env, cmd.Stdout, cmd.Stderr = append(os.Environ(), strings.Fields(env)...), os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s go %s: %v", env, strings.Join(args, " "), err)
	}
	return nil
}

// goTest runs go test -json with args, prints what go test prints without
// -json, and says every 15 seconds how many of the packages are done.
func goTest(packages int, args ...string) error {
	cmd := exec.Command("go", append([]string{"test", "-json"}, args...)...)
	cmd.Stderr = os.Stderr
	events, err := cmd.StdoutPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		return err
	}
	var run testevents.Run
	err = harness.Progress(func() string { return fmt.Sprintf("%d of %d packages done", run.Pkgs.Load(), packages) },
		func() error { return run.Read(events, io.Discard, os.Stdout) })
	if err = cmp.Or(err, cmd.Wait()); err != nil {
		return fmt.Errorf("go test %s: %v", strings.Join(args, " "), err)
	}
	return nil
}

// compilerMissing is, when the C compiler that the race detector needs is
// not there, one line that says so and how to get one; else "".
func compilerMissing() string {
	out, _ := harness.GoOutput("env", "CC")
	cc := strings.Join(append(strings.Fields(out), "gcc")[:1], "")
	if _, err := exec.LookPath(cc); err == nil {
		return ""
	}
	how := map[string]string{
		"darwin":  "install Xcode's command line tools: xcode-select --install",
		"windows": "install gcc, such as MSYS2's mingw-w64 (https://www.msys2.org), and put its bin folder on PATH",
	}[runtime.GOOS]
	return fmt.Sprintf("the race detector needs a C compiler, and %s (go env CC) is not on PATH: %s", cc,
		cmp.Or(how, "install gcc with your system's package manager (apt install gcc, dnf install gcc, apk add gcc)"))
}
