package scripttest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// brokenStage is a stage whose conformance test sends a request, says what
// went wrong with it, and races, or with LOCK set, deadlocks, or with SLOW
// set, takes its time without waiting for a lock.
var brokenStage = map[string]string{
	"go.mod": "module example.com/broken\n\ngo 1.26.0\n",
	"main.go": `package main

import "sync"

var mu sync.Mutex

func lockTwice() { mu.Lock(); mu.Lock() }

func add(n *int, done chan bool) { *n++; done <- true }

func main() {}
`,
	"stage_test.go": `package main

import (
	"os"
	"testing"
	"time"
)

func TestAPI(t *testing.T) {
	t.Run("ListByRole", func(t *testing.T) {
		if os.Getenv("LOCK") != "" {
			go lockTwice()
			lockTwice()
		}
		if os.Getenv("SLOW") != "" {
			time.Sleep(time.Minute)
		}
		t.Errorf("GET /users?role=x: 2 users, want 1\nafter:\n  POST /users {\"id\":\"u1\"}")
		n, done := 0, make(chan bool)
		go add(&n, done)
		add(&n, make(chan bool, 1))
		<-done
	})
}

func TestDifferential(t *testing.T) {}

func FuzzDifferential(f *testing.F) { f.Fuzz(func(*testing.T, []byte) {}) }
`,
}

// The summary of a failed check comes from the test events: the failing
// test, its message with the request under it, both sides of the race, and
// after a timeout, the goroutines waiting for a lock where the stage asked,
// and a deadlock only when some wait.
func TestCheckSummarizesWhatFailed(t *testing.T) {
	root := workspace(t)
	for file, content := range brokenStage {
		write(t, filepath.Join(root, "broken", file), content)
	}
	if out, err := exec.Command("go", "-C", root, "work", "use", "./broken").CombinedOutput(); err != nil {
		t.Fatalf("go work use: %v\n%s", err, out)
	}
	for _, c := range []struct {
		env        []string
		says       []string
		doesNotSay string
	}{
		{nil, []string{"--- FAIL: TestAPI/ListByRole\n", "   stage_test.go:18: GET /users?role=x: 2 users, want 1\n",
			"       POST /users {\"id\":\"u1\"}\n", "WARNING: DATA RACE", "broken.add()", "Previous ",
			"check: broken FAILED: the race detector, in the conformance suite and the differential tests at GOMAXPROCS=1" +
				" (results/check/broken/shared-1.log says why)\n"}, "deadlock"},
		{[]string{"LOCK=1", "USERPERF_CHECK_TIMEOUT=2s"}, []string{"panic: test timed out after 2s",
			"TestAPI/ListByRole ran over 2s: a deadlock.",
			"2 goroutines waiting for sync.Mutex.Lock in broken.lockTwice (main.go:7)\n",
			"check: broken FAILED: a deadlock, in the conformance suite and the differential tests at GOMAXPROCS=1 (results/check/broken/shared-1.log says why)\n"}, ""},
		{[]string{"SLOW=1", "USERPERF_CHECK_TIMEOUT=2s"}, []string{"panic: test timed out after 2s",
			"TestAPI/ListByRole ran over 2s, and no goroutine of the stage waits for a lock: not a deadlock",
			"check: broken FAILED: tests that did not finish, in the conformance suite and the differential tests at GOMAXPROCS=1 (results/check/broken/shared-1.log says why)\n"},
			": a deadlock"},
	} {
		cmd := script(root, "check", "--no-compare", "broken")
		cmd.Env = append(os.Environ(), c.env...)
		code, out := run(t, cmd)
		for _, s := range c.says {
			if !strings.Contains(out, s) {
				t.Errorf("%v: exit %d, and the output does not say %q:\n%s", c.env, code, s, out)
			}
		}
		if c.doesNotSay != "" && strings.Contains(out, c.doesNotSay) {
			t.Errorf("%v: the output says %q:\n%s", c.env, c.doesNotSay, out)
		}
		if verdict, _ := os.ReadFile(filepath.Join(root, "results", "check", "broken", "verdict.txt")); !strings.HasPrefix(string(verdict), "FAILED: ") {
			t.Errorf("%v: verdict.txt: %q", c.env, verdict)
		}
	}
}

// A prediction is a speed-up as the verdicts write one; --no-check records it and stops,
// and a prediction in any other form is refused before anything is kept.
func TestCheckRecordsPrediction(t *testing.T) {
	root := workspace(t)
	kept := filepath.Join(root, "results", "check", "bad", "prediction.txt")
	for _, bad := range []string{"three", "3", "0x", "-2x", "1e3x", "2x faster"} {
		if code, out := run(t, script(root, "check", "--predict", bad, "--no-check", "bad")); code != 2 || !strings.Contains(out, "give a speed-up as a number and x") {
			t.Errorf("--predict %q: exit %d\n%s", bad, code, out)
		}
	}
	if _, err := os.Stat(kept); err == nil {
		t.Errorf("a refused prediction was kept in %s", kept)
	}
	code, out := run(t, script(root, "check", "--predict", "1.5x", "--no-check", "bad"))
	if data, _ := os.ReadFile(kept); code != 0 || string(data) != "1.5x\n" || !strings.Contains(out, "recorded your prediction for bad: 1.5x") {
		t.Errorf("--predict 1.5x --no-check: exit %d, %s holds %q\n%s", code, kept, data, out)
	}
}
