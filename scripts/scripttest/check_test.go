package scripttest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// brokenStage is a stage whose conformance test sends a request, says what
// went wrong with it, and races, or with LOCK set, deadlocks.
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
)

func TestAPI(t *testing.T) {
	t.Run("ListByRole", func(t *testing.T) {
		if os.Getenv("LOCK") != "" {
			go lockTwice()
			lockTwice()
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
// after a timeout, the goroutines waiting for a lock where the stage asked.
func TestCheckSummarizesWhatFailed(t *testing.T) {
	root := workspace(t)
	for file, content := range brokenStage {
		write(t, filepath.Join(root, "broken", file), content)
	}
	if out, err := exec.Command("go", "-C", root, "work", "use", "./broken").CombinedOutput(); err != nil {
		t.Fatalf("go work use: %v\n%s", err, out)
	}
	for _, c := range []struct {
		env  []string
		says []string
	}{
		{nil, []string{"--- FAIL: TestAPI/ListByRole\n", "   stage_test.go:14: GET /users?role=x: 2 users, want 1\n",
			"       POST /users {\"id\":\"u1\"}\n", "WARNING: DATA RACE", "broken.add()", "Previous ",
			"check: broken FAILED: the race detector, in the conformance suite (TestAPI) at GOMAXPROCS=1, see above\n"}},
		{[]string{"LOCK=1", "USERPERF_CHECK_TIMEOUT=2s"}, []string{"panic: test timed out after 2s",
			"TestAPI/ListByRole ran over 2s: usually a deadlock.",
			"2 goroutines waiting for sync.Mutex.Lock in broken.lockTwice (main.go:7)\n",
			"check: broken FAILED: the conformance suite (TestAPI) at GOMAXPROCS=1, see above\n"}},
	} {
		cmd := script(root, "check", "--no-compare", "broken")
		cmd.Env = append(os.Environ(), c.env...)
		code, out := run(t, cmd)
		for _, s := range c.says {
			if !strings.Contains(out, s) {
				t.Errorf("%v: exit %d, and the output does not say %q:\n%s", c.env, code, s, out)
			}
		}
		if verdict, _ := os.ReadFile(filepath.Join(root, "results", "check", "broken", "verdict.txt")); !strings.HasPrefix(string(verdict), "FAILED: ") {
			t.Errorf("%v: verdict.txt: %q", c.env, verdict)
		}
	}
}
