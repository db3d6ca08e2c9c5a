package main

// This starting point must fail the shared suites: if it passed them, a
// learner could pass scripts/check.sh without fixing anything. The tests
// below run the suites on it and pass when the suites fail for the
// sketch's bugs and name what showed them.
//
// Each suite runs in a child process (this test binary, started again with
// the suite named in an environment variable): a suite that fails marks
// the test that runs it as failed, and a data race or a concurrent map
// write may end the process, so the parent can only watch from outside.
//
// scripts/new-stage.sh leaves this file and start_race_test.go out of a
// learner's copy and puts the usual stage_test.go in their place, so that
// the copy runs the suites directly and fails until the learner's fix is
// right.

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"example.com/userperf/common/apitest"
)

// suiteEnv names the suite that TestSuiteInChild and FuzzSuiteInChild run.
const suiteEnv = "QUEST5_SUITE"

// raceEnabled is set by start_race_test.go when the tests are built with -race.
var raceEnabled bool

// TestSuiteInChild runs one shared suite on the sketch when the parent asks
// for it, and is skipped in an ordinary go test.
func TestSuiteInChild(t *testing.T) {
	switch os.Getenv(suiteEnv) {
	case "run":
		apitest.Run(t, New)
	case "differential":
		apitest.Differential(t, New)
	default:
		t.Skip("a child of the tests below; not a test of its own")
	}
}

// FuzzSuiteInChild runs FuzzDifferential's seeds on the sketch when the
// parent asks for it.
func FuzzSuiteInChild(f *testing.F) {
	if os.Getenv(suiteEnv) != "fuzz" {
		f.Skip("a child of the tests below; not a test of its own")
	}
	apitest.FuzzDifferential(f, New)
}

// runChild runs the tests that pattern selects in a child process with
// suiteEnv set to suite, and returns its output. It fails t if the child
// passes: the suite did not catch the sketch.
func runChild(t *testing.T, suite, pattern string) string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run", pattern, "-test.count", "1", "-test.failfast")
	cmd.Env = append(os.Environ(), suiteEnv+"="+suite)
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the shared suite passed the cache sketch (go test -run '%s' with %s=%s):\n%s", pattern, suiteEnv, suite, out)
	}
	if _, exited := err.(*exec.ExitError); !exited {
		t.Fatalf("the child did not run: %v", err)
	}
	return string(out)
}

// wantAll fails t unless out holds every one of parts.
func wantAll(t *testing.T, out string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(out, p) {
			t.Errorf("the suite failed, but its output does not contain %q:\n%s", p, out)
		}
	}
}

// The conformance suite writes, then reads the roles it touched: the
// sketch answers the list it cached before a DELETE, with the deleted
// user still in it, and the suite names that request.
func TestConformanceCatchesAStaleList(t *testing.T) {
	out := runChild(t, "run", "^TestSuiteInChild$/^Writes$")
	wantAll(t, out, "--- FAIL: TestSuiteInChild/Writes", "after DELETE", "GET /users?role=", "body differs")
}

// The differential tests catch the same staleness in random sequences,
// and list the requests that led to it.
func TestDifferentialCatchesAStaleList(t *testing.T) {
	out := runChild(t, "differential", "^TestSuiteInChild$")
	wantAll(t, out, "differs from the Reference", "GET /users?role=", "the requests so far")
}

// The seeds of the fuzz target hold a write followed by a read of what it
// wrote, which a plain go test runs: enough to catch the sketch.
func TestFuzzSeedsCatchAStaleList(t *testing.T) {
	out := runChild(t, "fuzz", "^FuzzSuiteInChild$")
	wantAll(t, out, "--- FAIL: FuzzSuiteInChild", "differs from the Reference")
}

// Concurrent readers fill the cache at once, with no lock between them:
// the race detector reports it, in ListByRole. Without -race the bug may
// or may not show (a torn map crashes the process only when the runtime
// happens to notice), so this test needs go test -race, which test.sh and
// check.sh use.
func TestRaceDetectorCatchesTheMissingLock(t *testing.T) {
	if !raceEnabled {
		t.Skip("needs the race detector: go test -race")
	}
	out := runChild(t, "run", "^TestSuiteInChild$/^ConcurrentReadersAndWriters$")
	wantAll(t, out, "WARNING: DATA RACE", "(*Store).ListByRole")
}
